"""GPT-2 files and Hugging Face tokenizer.json: same ids as the tools that made or read them."""

import json

import pytest
from tokenizers import Regex, decoders, models, pre_tokenizers, trainers
from tokenizers import Tokenizer as HFTokenizer

from lib import Tokenizer, data, patterns

pytestmark = pytest.mark.scale  # agreement with SentencePiece and Hugging Face files

EOT = "<|endoftext|>"
LANGUAGES = ["eng_Latn", "hin_Deva", "zho_Hans", "arb_Arab", "rus_Cyrl", "kor_Hang", "ell_Grek"]


def lines(split: str, per_language: int) -> list[str]:
    return [line for lang in LANGUAGES for line in data.flores(lang, split)[:per_language]]


SAMPLES = [
    *lines("devtest", 20),
    "Hello, world!  \n\n\tindented\n    code = 42 # 12345 😀👋🏽 ",
    f"two documents{EOT}in one <|endoftext|> string",
    "\u200dzero width joiner, naïve café, ﬁ ligature, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]


def hf_ids(hf: HFTokenizer, text: str) -> list[int]:
    return hf.encode(text, add_special_tokens=False).ids


# -- GPT-2's vocab.json and merges.txt ------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt2_files(tmp_path_factory):
    """GPT-2's files, made from tiktoken's gpt2 encoding (the ranks are OpenAI's own)."""
    folder = tmp_path_factory.mktemp("gpt2")
    Tokenizer.from_tiktoken("gpt2").save_gpt2_files(folder / "vocab.json", folder / "merges.txt")
    return folder / "vocab.json", folder / "merges.txt"


def test_gpt2_files_match_tiktoken_and_hugging_face(gpt2_files):
    vocab_json, merges_txt = gpt2_files
    ours = Tokenizer.from_gpt2_files(vocab_json, merges_txt, special_tokens=[EOT])
    assert ours.special_tokens == {EOT: 50256} and len(ours.merges) == 50000
    assert json.loads(vocab_json.read_text(encoding="utf-8"))["Ġthe"] == 262
    hf = HFTokenizer(models.BPE.from_file(str(vocab_json), str(merges_txt)))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.add_special_tokens([EOT])
    tiktoken_gpt2 = data.tiktoken_encoding("gpt2")
    for text in SAMPLES:
        expected = tiktoken_gpt2.encode(text, allowed_special="all")
        assert ours.encode(text, allowed_special="all") == expected
        assert hf_ids(hf, text) == expected


def test_gpt2_files_errors_name_the_place(gpt2_files, tmp_path):
    vocab_json, merges_txt = gpt2_files
    bad = tmp_path / "merges.txt"
    bad.write_text("#version: 0.2\nĠ t\nĠt h e\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"merges.txt, line 3: expected 'left right'"):
        Tokenizer.from_gpt2_files(vocab_json, bad)
    bad.write_text("#version: 0.2\nĠ t\nĠ ✓\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 3: token '✓' has the character '✓'"):
        Tokenizer.from_gpt2_files(vocab_json, bad)


# -- Hugging Face tokenizer.json ------------------------------------------------------------------


def train_hf(pre_tokenizer, vocab_size=2000) -> HFTokenizer:
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizer
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOT, "<|pad|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    hf.train_from_iterator(lines("dev", 200), trainer)
    return hf


HF_GPT4_PATTERN = patterns.GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
HF_PRE_TOKENIZERS = {
    "ByteLevel": lambda: pre_tokenizers.ByteLevel(add_prefix_space=False),
    "Split+ByteLevel": lambda: pre_tokenizers.Sequence(
        [
            # GPT-4's pattern as Llama 3 writes it: Oniguruma reads {1,3}+ as a repeat.
            pre_tokenizers.Split(Regex(HF_GPT4_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    ),
}


@pytest.mark.parametrize("kind", list(HF_PRE_TOKENIZERS))
def test_hugging_face_trained_files_load_with_the_same_ids(kind, tmp_path):
    hf = train_hf(HF_PRE_TOKENIZERS[kind]())
    hf.save(str(tmp_path / "tokenizer.json"))
    ours = Tokenizer.from_huggingface(tmp_path / "tokenizer.json")
    assert ours.special_tokens == {EOT: 0, "<|pad|>": 1}  # ids far from our own layout
    assert ours.vocab[ours.ranks[b"a"]] == b"a" and ours.ranks[b"a"] != 97
    for text in SAMPLES:
        ids = ours.encode(text, allowed_special="all")
        assert ids == hf_ids(hf, text), text
        assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=False)


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "gpt4o", None])
def test_our_tokenizers_load_in_hugging_face(pattern, tmp_path):
    text = "\n".join(lines("dev", 60))
    ours = Tokenizer.train(text, 1200, pattern=pattern, special_tokens=[EOT, "<|user|>"])
    ours.save_huggingface(tmp_path / "tokenizer.json")
    hf = HFTokenizer.from_file(str(tmp_path / "tokenizer.json"))
    samples = SAMPLES if pattern else SAMPLES[-3:]  # no pattern: BPE over whole lines is slow
    for sample in samples:
        assert hf_ids(hf, sample) == ours.encode(sample, allowed_special="all"), sample
    back = Tokenizer.from_huggingface(tmp_path / "tokenizer.json")
    assert (back.vocab, back.merges, back.special_tokens) == (
        ours.vocab,
        ours.merges,
        ours.special_tokens,
    )
    for sample in samples:  # GPT-4's pattern comes back in Oniguruma's spelling, same chunks
        assert back.encode(sample, allowed_special="all") == hf_ids(hf, sample)


def test_unsupported_files_are_refused_clearly(tmp_path):
    hf = train_hf(pre_tokenizers.ByteLevel(add_prefix_space=False), vocab_size=400)
    spec = json.loads(hf.to_str())
    changes = {
        "model type 'WordPiece'": lambda s: s["model"].update(type="WordPiece"),
        "normalizer 'NFC'": lambda s: s.update(normalizer={"type": "NFC"}),
        "byte_fallback=True": lambda s: s["model"].update(byte_fallback=True),
        "pre-tokenizer": lambda s: s["pre_tokenizer"].update(add_prefix_space=True),
        "added token 'x'": lambda s: s["added_tokens"].append({"id": 5, "content": "x"}),
        "repeats": lambda s: s.update(
            pre_tokenizer={
                "type": "Sequence",
                "pretokenizers": [
                    {"type": "Split", "pattern": {"Regex": patterns.GPT4_PATTERN}},
                    {"type": "ByteLevel", "use_regex": False},
                ],
            }
        ),
    }
    for message, change in changes.items():
        broken = json.loads(json.dumps(spec))
        change(broken)
        path = tmp_path / "tokenizer.json"
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(ValueError, match=f"{message}.* is not supported"):
            Tokenizer.from_huggingface(path)
    path.write_bytes(b"\xff\xfe not json")
    with pytest.raises(ValueError, match="not a Hugging Face tokenizer.json"):
        Tokenizer.from_huggingface(path)
