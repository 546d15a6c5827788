"""Course data: every file the lessons read, fetched once and checked byte for byte.

`datasets/manifest.json` lists each file with its upstream URL (pinned to a commit), size and
sha256. A file is looked for in three places, in this order:

1. the local cache, `datasets/cache/<path>` (or `$COURSE_DATA_CACHE/<path>` when that is set);
2. an offline mirror, `$COURSE_DATA_MIRROR/datasets/<path>`, which is copied into the cache;
3. upstream: pooch downloads it into the cache, with a progress bar.

Whatever the source, the bytes must match the manifest's sha256 before anything reads them. A
cached file that does not match is deleted and fetched again; a mirror file that does not match is
an error, because silently using other bytes would change every token count downstream.
tiktoken's encoding files take the same three steps (see `ensure_tiktoken_cache`).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tiktoken

# Located from this file, not the working directory, so it works from a notebook, pytest or Colab.
REPO_ROOT = Path(__file__).resolve().parent.parent
MANIFEST_FILE = REPO_ROOT / "datasets" / "manifest.json"
MIRROR_VAR = "COURSE_DATA_MIRROR"
CACHE_VAR = "COURSE_DATA_CACHE"

#: Short names for the corpora the lessons use; any manifest path works too.
ALIASES = {
    "tinyshakespeare": "tinyshakespeare/input.txt",
    "the-verdict": "the-verdict/the-verdict.txt",
    "ramcharitmanas": "ramcharitmanas/main.txt",
    "taylorswift": "taylorswift/taylorswift.txt",
    "cs336-corpus": "cs336/corpus.en",
}
FLORES_SPLITS = ("dev", "devtest")


class DataError(RuntimeError):
    """A course data file could not be provided as the manifest describes it."""


class DataUnavailableError(DataError):
    """No source (cache, mirror, download) could provide the file."""


class ChecksumMismatchError(DataError):
    """A file's bytes differ from the manifest: it is refused, never read."""


@functools.cache
def _manifest() -> dict[str, Any]:
    """The parsed manifest: {"datasets": [...], "tiktoken": [...]} (read once per process)."""
    return json.loads(MANIFEST_FILE.read_text(encoding="utf-8"))


def _datasets() -> dict[str, dict[str, Any]]:
    return {entry["path"]: entry for entry in _manifest()["datasets"]}


def cache_dir() -> Path:
    """The folder fetched files are kept in: `$COURSE_DATA_CACHE` if set, else `datasets/cache/`."""
    return Path(os.environ.get(CACHE_VAR) or REPO_ROOT / "datasets" / "cache")


def _sha256(file: Path) -> str:
    return hashlib.sha256(file.read_bytes()).hexdigest()


def _fetch(label: str, url: str, sha256: str, target: Path, mirror_path: str) -> Path:
    """Make `target` hold the verified file, trying the cache, then the mirror, then upstream."""
    if target.is_file():
        if _sha256(target) == sha256:
            return target
        target.unlink(missing_ok=True)  # damaged or outdated (another thread may have gone first)
    mirror = os.environ.get(MIRROR_VAR)
    source = Path(mirror) / mirror_path if mirror else None
    if source is not None and source.is_file():
        if _sha256(source) != sha256:
            raise ChecksumMismatchError(
                f"{label}: the mirror's copy {source} does not match the manifest "
                f"(expected sha256 {sha256}); refusing to use it. Replace it with the file "
                f"from {url}."
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        _copy_atomically(source, target)
        return target
    try:
        import pooch  # imported here: only a download needs it

        pooch.retrieve(
            url,
            known_hash=f"sha256:{sha256}",
            fname=target.name,
            path=target.parent,
            progressbar=True,
        )
    except Exception as error:
        where = f"not in the mirror ({source})" if source else f"{MIRROR_VAR} is not set"
        raise DataUnavailableError(
            f"Could not get {label}: it is not in the cache ({target}), {where}, and downloading "
            f"{url} failed ({type(error).__name__}: {error}). On a machine without internet, set "
            f"{MIRROR_VAR} to a folder holding the course's mirror (datasets/ and tiktoken_cache/)."
        ) from error
    return target


def _copy_atomically(source: Path, target: Path) -> None:
    """Copy to a uniquely named file beside the target, then rename it into place.

    A half-copied file never looks like a cached one, and loads running at the same time (threads
    or processes) each write their own temporary file; the renames replace whole files only.
    """
    handle, partial = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".partial", dir=target.parent
    )
    os.close(handle)
    try:
        shutil.copyfile(source, partial)
        os.chmod(partial, 0o644)  # mkstemp makes it private; the cache is shared (the grader)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def _resolve(name: str) -> str:
    rel = ALIASES.get(name, name)
    if rel not in _datasets():
        raise ValueError(
            f"Unknown data file {name!r}. Use an alias ({', '.join(ALIASES)}) or a path listed "
            f"in {MANIFEST_FILE}, such as 'cs336/corpus.en'."
        )
    return rel


def path(name: str) -> Path:
    """The local, sha256-verified copy of a data file (fetched first if needed).

    `name` is an alias such as "tinyshakespeare" or a manifest path such as "cs336/corpus.en".
    """
    rel = _resolve(name)
    entry = _datasets()[rel]
    return _fetch(rel, entry["url"], entry["sha256"], cache_dir() / rel, f"datasets/{rel}")


def read_text(name: str) -> str:
    """The whole file as a string, decoded from UTF-8 exactly as stored.

    Decoding the bytes ourselves (instead of opening in text mode) keeps every "\\r\\n" as it is:
    token counts must match tiktoken's on the very same text.
    """
    return path(name).read_bytes().decode("utf-8")


def flores_languages() -> dict[str, str]:
    """FLORES-200 code -> English name, for the 32 languages the course has, sorted by code."""
    codes = sorted(Path(p).stem for p in _datasets() if p.startswith("flores200/devtest/"))
    rows = csv.reader(
        io.StringIO(read_text("flores200/flores_language_map.csv")), skipinitialspace=True
    )
    next(rows)  # header: "Language, FLORES-200 code"
    names = {code: language for language, code in rows}
    return {code: names[code] for code in codes}


def flores(lang: str, split: str = "devtest") -> list[str]:
    """The FLORES-200 sentences of one language; line i is the same sentence in every language.

    Returns the lines without their trailing "\\n" (997 for "dev", 1012 for "devtest").
    """
    if split not in FLORES_SPLITS:
        raise ValueError(f"split must be one of {FLORES_SPLITS}, not {split!r}")
    rel = f"flores200/{split}/{lang}.{split}"
    if rel not in _datasets():
        raise ValueError(
            f"No FLORES-200 text for {lang!r}; data.flores_languages() lists the codes."
        )
    # Split on "\n" only: str.splitlines() would also cut at separators such as U+2028 or U+0085,
    # which can sit inside a sentence.
    return read_text(rel).removesuffix("\n").split("\n")


def ensure_tiktoken_cache(names: str | Iterable[str] | None = None) -> Path:
    """Make `tiktoken.get_encoding(name)` work without internet for the given encodings.

    tiktoken looks for its files in `$TIKTOKEN_CACHE_DIR`, each named by the sha1 of its download
    URL. If that variable is unset (or empty) it is pointed at `<cache>/tiktoken/`; then every file
    the named encodings need (all encodings when `names` is None) is put there through the same
    cache -> mirror -> download steps as the datasets. Returns the folder.
    """
    files = _manifest()["tiktoken"]
    known = {enc for f in files for enc in f["encodings"]}
    wanted = known if names is None else {names} if isinstance(names, str) else set(names)
    if wanted - known:
        raise ValueError(
            f"No tiktoken files listed for {sorted(wanted - known)}; known: {sorted(known)}"
        )
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir() / "tiktoken")
    folder = Path(os.environ["TIKTOKEN_CACHE_DIR"])
    for f in files:
        if wanted & set(f["encodings"]):
            label = f"tiktoken file {f['file']} ({', '.join(f['encodings'])})"
            _fetch(label, f["url"], f["sha256"], folder / f["file"], f"tiktoken_cache/{f['file']}")
    return folder


def fetch_all() -> None:
    """Put every file of the manifest (datasets and tiktoken's) into the cache now: before
    grading (sandboxed kernels have no network and a read-only cache) or a class offline."""
    ensure_tiktoken_cache()
    for name in _datasets():
        path(name)


def tiktoken_encoding(name: str) -> tiktoken.Encoding:
    """`tiktoken.get_encoding(name)`, with its files fetched and verified first (works offline)."""
    import tiktoken

    ensure_tiktoken_cache(name)
    return tiktoken.get_encoding(name)


def _short_data_error(
    shell: Any, kind: type, error: BaseException, tb: Any, tb_offset=None
) -> None:
    """In a notebook, a data problem is a few plain lines (what, where it looked, what to do),
    not pages of traceback from pooch and requests."""
    print(f"⚠️ {kind.__name__}: {error}")
    return None


def show_data_errors_briefly() -> None:
    """Make IPython print `DataError`s as short messages (done on `import lib` in a notebook)."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: tracebacks are what a script's user expects
        return
    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((DataError,), _short_data_error)


show_data_errors_briefly()
