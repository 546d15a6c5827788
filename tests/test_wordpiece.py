"""lib.wordpiece gives the same pieces, ids and offsets as Hugging Face `tokenizers`' WordPiece."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

from lib import data, wordpiece

pytestmark = pytest.mark.scale  # agreement with Hugging Face tokenizers on FLORES

TRAIN_LANGUAGES = ["eng_Latn", "deu_Latn", "rus_Cyrl", "hin_Deva", "arb_Arab", "zho_Hans"]
# Trained-on languages, and others whose scripts the vocabulary barely has (many [UNK]s).
TEST_LANGUAGES = [*TRAIN_LANGUAGES, "jpn_Jpan", "kor_Hang", "tam_Taml", "tha_Thai", "mya_Mymr"]
TEST_LANGUAGES += ["vie_Latn", "amh_Ethi", "ell_Grek", "heb_Hebr", "yor_Latn"]


def bert_like(vocab: dict[str, int] | None = None) -> Tokenizer:
    """WordPiece as BERT runs it, minus lowercasing and accent stripping."""
    tokenizer = Tokenizer(
        models.WordPiece(vocab, unk_token="[UNK]") if vocab else models.WordPiece(unk_token="[UNK]")
    )
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=False, handle_chinese_chars=True, strip_accents=False, lowercase=False
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tokenizer


@pytest.fixture(scope="module")
def trained() -> Tokenizer:
    tokenizer = bert_like()
    text = [s for lang in TRAIN_LANGUAGES for s in data.flores(lang, "dev")[:300]]
    trainer = trainers.WordPieceTrainer(vocab_size=3000, special_tokens=["[UNK]"])
    tokenizer.train_from_iterator(text, trainer)
    return tokenizer


def hf_tokens(tokenizer: Tokenizer, text: str) -> list[wordpiece.Token]:
    encoding = tokenizer.encode(text)
    return [
        (token, start, end)
        for token, (start, end) in zip(encoding.tokens, encoding.offsets, strict=True)
    ]


def test_same_pieces_ids_and_offsets_as_hugging_face_on_flores(trained):
    vocab = trained.get_vocab()
    checked = unknown = 0
    for lang in TEST_LANGUAGES:
        for sentence in data.flores(lang, "devtest")[:60]:
            ours = wordpiece.tokenize(sentence, vocab)
            assert ours == hf_tokens(trained, sentence), (lang, sentence)
            assert wordpiece.encode(sentence, vocab) == trained.encode(sentence).ids
            checked += 1
            unknown += sum(piece == wordpiece.UNK for piece, _, _ in ours)
    assert checked == 60 * len(TEST_LANGUAGES)
    assert unknown > 100  # the scripts it was not trained on really do hit [UNK]


VOCAB = {
    piece: i
    for i, piece in enumerate(
        ["[UNK]", "un", "##aff", "##able", "##a", "a", "b", "##b", "ab", "##ab", "世", "界", "é"]
        + [",", "!", "$", "##é", "e", "##\u0301", "😀", "##😀", "x", "##x"]
    )
}
SOME_CHARACTERS = "ab e\u0301é世界😀x,!$\u00a0\u3000\t\n\x1c\u2028-"


# Any character Unicode 3.2 already had (Python keeps that old table as unicodedata.ucd_3_2_0).
# Hugging Face's Rust code classifies characters with older Unicode tables than Python's, so a
# punctuation mark added since (U+2E52, Unicode 13) splits a word here and not there: a
# difference of Unicode versions, not of the algorithm. The FLORES test above is real text.
OLD_CHARACTERS = st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)).filter(
    lambda ch: unicodedata.ucd_3_2_0.category(ch) != "Cn"
)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=SOME_CHARACTERS, max_size=40) | st.text(OLD_CHARACTERS, max_size=20))
def test_same_as_hugging_face_on_generated_text(text):
    """Whitespace that Python and Rust disagree about, punctuation, CJK, combining marks."""
    assert wordpiece.tokenize(text, VOCAB) == hf_tokens(bert_like(VOCAB), text)


def test_greedy_longest_match_and_whole_word_unknowns():
    assert wordpiece.encode_word("unaffable", VOCAB) == ["un", "##aff", "##able"]
    assert wordpiece.encode_word("abab", VOCAB) == ["ab", "##ab"]
    assert wordpiece.encode_word("unaffablez", VOCAB) == ["[UNK]"]  # one bad letter: all lost
    assert wordpiece.encode_word("x" * 100, VOCAB) == ["x"] + ["##x"] * 99
    assert wordpiece.encode_word("x" * 101, VOCAB) == ["[UNK]"]  # too long to try
    assert wordpiece.tokenize("abab, 世界!", VOCAB) == [
        ("ab", 0, 2),
        ("##ab", 2, 4),
        (",", 4, 5),
        ("世", 6, 7),
        ("界", 7, 8),
        ("!", 8, 9),
    ]
    assert wordpiece.decode(["un", "##aff", "##able", "[UNK]", "!"]) == "unaffable [UNK] !"


def test_vocabulary_from_bpe_pieces():
    pieces = ["▁t", "he", "▁the", "▁a", ",", "▁世界", "er", "t", "h", "e", "a", "r", "世", "界"]
    vocab = wordpiece.vocab_from_bpe(pieces, 17)
    alphabet = [
        "[UNK]",
        ",",
        "a",
        "##a",
        "e",
        "##e",
        "h",
        "##h",
        "r",
        "##r",
        "t",
        "##t",
        "世",
        "界",
    ]
    assert list(vocab) == [*alphabet, "##he", "the", "##er"]  # no "▁a": a is already there
    assert list(vocab.values()) == list(range(17))
    assert wordpiece.encode_word("there", vocab) == ["the", "##r", "##e"]
    assert len(wordpiece.vocab_from_bpe(pieces, 5)) == 5
