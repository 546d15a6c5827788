"""lib.data: the cache -> mirror -> download order, sha256 checks, and the real files.

Unit tests run against a tiny made-up manifest (a temporary cache, a fake mirror, no network).
Tests marked `needs_mirror` read the real files through `$COURSE_DATA_MIRROR` into a fresh cache.
"""

import functools
import hashlib
import os
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pooch
import pytest

from lib import data

CONTENT = b"one\r\ntwo\n"  # a Windows line ending that must survive reading
URL = "https://example.invalid/fake/crlf.txt"
FAKE_MANIFEST = {
    "datasets": [
        {
            "path": "fake/crlf.txt",
            "url": URL,
            "bytes": len(CONTENT),
            "sha256": hashlib.sha256(CONTENT).hexdigest(),
            "license": "test",
        }
    ],
    "tiktoken": [],
}
needs_mirror = pytest.mark.skipif(
    not os.environ.get(data.MIRROR_VAR), reason=f"{data.MIRROR_VAR} is not set"
)


def no_network(*args, **kwargs):
    raise ConnectionError("network disabled in this test")


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A made-up manifest, an empty cache and a mirror holding the right bytes."""
    monkeypatch.setattr(data, "_manifest", lambda: FAKE_MANIFEST)
    monkeypatch.setenv(data.CACHE_VAR, str(tmp_path / "cache"))
    monkeypatch.setenv(data.MIRROR_VAR, str(tmp_path / "mirror"))
    mirrored = tmp_path / "mirror" / "datasets" / "fake" / "crlf.txt"
    mirrored.parent.mkdir(parents=True)
    mirrored.write_bytes(CONTENT)
    return {"cached": tmp_path / "cache" / "fake" / "crlf.txt", "mirrored": mirrored}


def test_mirror_copy_lands_in_cache_and_keeps_crlf(fake):
    assert data.path("fake/crlf.txt") == fake["cached"]
    assert fake["cached"].read_bytes() == CONTENT
    assert data.read_text("fake/crlf.txt") == "one\r\ntwo\n"


def test_cached_copies_are_readable_by_everyone(fake):
    """The grader's sandboxed kernels run as other users and read the instructor's cache."""
    assert data.path("fake/crlf.txt").stat().st_mode & 0o777 == 0o644


def test_cached_copy_is_used_without_mirror(fake, monkeypatch):
    data.path("fake/crlf.txt")
    monkeypatch.delenv(data.MIRROR_VAR)
    assert data.read_text("fake/crlf.txt") == CONTENT.decode()


def test_damaged_cache_is_replaced_from_mirror(fake):
    fake["cached"].parent.mkdir(parents=True)
    fake["cached"].write_bytes(b"damaged")
    assert data.path("fake/crlf.txt").read_bytes() == CONTENT


def test_mirror_with_wrong_bytes_is_refused_and_not_cached(fake):
    fake["cached"].parent.mkdir(parents=True)
    fake["cached"].write_bytes(b"damaged")
    fake["mirrored"].write_bytes(b"one\ntwo\n")
    with pytest.raises(data.ChecksumMismatchError, match="fake/crlf.txt"):
        data.path("fake/crlf.txt")
    assert not fake["cached"].exists()


def test_offline_without_mirror_explains_what_to_do(fake, monkeypatch):
    monkeypatch.delenv(data.MIRROR_VAR)
    monkeypatch.setattr(pooch, "retrieve", no_network)
    with pytest.raises(data.DataUnavailableError) as info:
        data.read_text("fake/crlf.txt")
    assert isinstance(info.value, RuntimeError)
    for needed in ("fake/crlf.txt", URL, "COURSE_DATA_MIRROR"):
        assert needed in str(info.value)
    assert not fake["cached"].exists()


def test_download_goes_through_pooch_and_is_verified(fake, monkeypatch):
    """A real pooch download from a web server on this machine; the mirror variable is unset."""
    monkeypatch.delenv(data.MIRROR_VAR)
    for var in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    upstream = fake["mirrored"].parents[2]
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(upstream))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/datasets/fake/crlf.txt"
        entry = dict(FAKE_MANIFEST["datasets"][0], url=url)
        monkeypatch.setattr(data, "_manifest", lambda: {"datasets": [entry], "tiktoken": []})
        assert data.path("fake/crlf.txt").read_bytes() == CONTENT
        fake["cached"].unlink()
        fake["mirrored"].write_bytes(b"changed upstream")
        with pytest.raises(data.DataUnavailableError, match="hash"):
            data.path("fake/crlf.txt")
        server.shutdown()
    assert not fake["cached"].exists()


def test_unknown_names_are_rejected():
    with pytest.raises(ValueError, match="tinyshakespeare"):
        data.path("no-such-corpus")
    with pytest.raises(ValueError, match="split"):
        data.flores("eng_Latn", split="test")
    with pytest.raises(ValueError, match="flores_languages"):
        data.flores("xyz_Latn")
    with pytest.raises(ValueError, match="no_such_encoding"):
        data.ensure_tiktoken_cache("no_such_encoding")


def test_aliases_name_manifest_files():
    assert set(data.ALIASES.values()) <= set(data._datasets())


@pytest.fixture(scope="module")
def fresh_cache(tmp_path_factory):
    """An empty cache shared by the real-data tests, so every file comes from the mirror once."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(data.CACHE_VAR, str(tmp_path_factory.mktemp("cache")))
        yield


@needs_mirror
def test_every_real_file_reads_through_the_mirror(fresh_cache):
    for entry in data._manifest()["datasets"]:
        assert len(data.read_text(entry["path"]).encode("utf-8")) == entry["bytes"], entry["path"]


@needs_mirror
def test_flores_has_32_aligned_languages(fresh_cache):
    languages = data.flores_languages()
    assert len(languages) == 32 and list(languages) == sorted(languages)
    assert languages["eng_Latn"] == "English"
    for split, lines in (("dev", 997), ("devtest", 1012)):
        for lang in languages:
            sentences = data.flores(lang, split)
            assert len(sentences) == lines and all(s and "\n" not in s for s in sentences)


@needs_mirror
def test_tiktoken_files_go_to_the_users_folder_per_encoding(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "mine"))
    assert data.ensure_tiktoken_cache("gpt2") == tmp_path / "mine"
    gpt2 = {f["file"] for f in data._manifest()["tiktoken"] if "gpt2" in f["encodings"]}
    assert len(gpt2) == 2 and {p.name for p in (tmp_path / "mine").iterdir()} == gpt2


@needs_mirror
def test_all_tiktoken_encodings_load_offline(tmp_path):
    """A fresh interpreter (tiktoken keeps loaded encodings in memory) with the network cut."""
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    env.update(
        {
            data.CACHE_VAR: str(tmp_path),
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "HTTP_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "",
            "no_proxy": "",
        }
    )
    script = (
        "import os, tiktoken; from lib import data; from lib.tiktoken_files import ENCODINGS\n"
        "for n in ENCODINGS:\n"
        "    ids = data.tiktoken_encoding(n).encode('hello world')\n"
        "    assert tiktoken.get_encoding(n).decode(ids) == 'hello world' and len(ids) == 2, n\n"
        "print(os.environ['TIKTOKEN_CACHE_DIR'])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        cwd=data.REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(tmp_path / "tiktoken")
    assert len(list((tmp_path / "tiktoken").iterdir())) == 6


def test_80_concurrent_loads_all_succeed(fake, monkeypatch):
    """Threads that all find the cache empty copy from the mirror at once: none may fail."""
    from concurrent.futures import ThreadPoolExecutor

    copy = data.shutil.copyfile

    def slow_copy(source, target):  # widen the window between copying and renaming
        copy(source, target)
        time.sleep(0.05)

    monkeypatch.setattr(data.shutil, "copyfile", slow_copy)
    with ThreadPoolExecutor(max_workers=80) as pool:
        texts = list(pool.map(lambda _: data.read_text("fake/crlf.txt"), range(80)))
    assert texts == ["one\r\ntwo\n"] * 80
    assert [p.name for p in fake["cached"].parent.iterdir()] == ["crlf.txt"]  # no temp files left


def test_concurrent_processes_share_one_cache(fake, tmp_path):
    script = (
        "import json, sys; from lib import data\n"
        "data._manifest = lambda: json.loads(sys.argv[1])\n"
        "assert data.read_text('fake/crlf.txt') == 'one\\r\\ntwo\\n'\n"
    )
    manifest = __import__("json").dumps(FAKE_MANIFEST)
    runs = [
        subprocess.Popen([sys.executable, "-c", script, manifest], cwd=data.REPO_ROOT)
        for _ in range(6)
    ]
    assert [run.wait(timeout=120) for run in runs] == [0] * 6
    assert fake["cached"].read_bytes() == CONTENT


def test_a_missing_file_offline_is_a_short_message_in_a_notebook(tmp_path):
    """In a notebook, a data problem prints a few plain lines, not pooch's traceback."""
    import nbformat
    from nbclient import NotebookClient

    from lib.notebooks import ThisPython

    cell = nbformat.v4.new_code_cell(
        f"import sys; sys.path.insert(0, {str(data.REPO_ROOT)!r})\n"
        "from lib import data\n"
        "data.path('tinyshakespeare')"
    )
    notebook = nbformat.v4.new_notebook(cells=[cell])
    env = {k: v for k, v in os.environ.items() if k != data.MIRROR_VAR}
    env[data.CACHE_VAR] = str(tmp_path / "empty-cache")
    env["HTTPS_PROXY"] = env["HTTP_PROXY"] = "http://127.0.0.1:9"  # no network, at once
    client = NotebookClient(notebook, kernel_name="python3", allow_errors=True, timeout=60)
    client.km = client.create_kernel_manager()
    client.km.kernel_spec_manager = ThisPython()

    async def run():
        await client.async_start_new_kernel(env=env)
        await client.async_start_new_kernel_client()
        try:
            await client.async_execute_cell(cell, 0)
        finally:
            await client._async_cleanup_kernel()

    import asyncio

    asyncio.run(run())
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    assert "DataUnavailableError: Could not get tinyshakespeare/input.txt" in text
    assert "COURSE_DATA_MIRROR" in text and len(text.splitlines()) <= 3
    assert not [o for o in cell.outputs if o.output_type == "error"]
