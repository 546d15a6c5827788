"""lib.fairness: Petrov et al.'s strings and counts, our encoder against tiktoken, premium math."""

import math

import pytest

from lib import Tokenizer, data, fairness

pytestmark = pytest.mark.scale  # counts all of FLORES

# Short texts in different scripts: enough to cover Latin, Devanagari, Myanmar and Han characters
# without making the pure-Python encoder run for long.
FEW_LANGUAGES = ["eng_Latn", "hin_Deva", "mya_Mymr", "zho_Hant"]


@pytest.fixture(scope="module")
def texts():
    return {lang: fairness.petrov_text(lang) for lang in data.flores_languages()}


def test_petrov_text_is_dev_then_devtest_with_their_stray_spaces():
    text = fairness.petrov_text("eng_Latn")
    dev, devtest = data.flores("eng_Latn", "dev"), data.flores("eng_Latn", "devtest")
    assert text == " ".join(dev) + "  " + " ".join(devtest) + " "


def test_published_table_covers_the_course_languages():
    for column in ("gpt2", "cl100k_base", "bytes", "characters"):
        assert set(fairness.PUBLISHED[column]) == set(data.flores_languages())


def test_tiktoken_reproduces_every_published_count(texts):
    counters = {"characters": list, "bytes": str.encode}
    counters.update({name: data.tiktoken_encoding(name).encode for name in ("gpt2", "cl100k_base")})
    assert fairness.token_counts(counters, texts) == fairness.PUBLISHED


# (tests/test_tiktoken_parity.py compares our encoder with tiktoken token for token on FLORES for
# every encoding; here the point is the published numbers, on Petrov et al.'s exact strings.)
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_our_encoder_reproduces_the_published_counts(name, texts):
    few = {lang: texts[lang] for lang in FEW_LANGUAGES}
    ours = fairness.token_counts({name: Tokenizer.from_tiktoken(name).encode}, few)[name]
    theirs = fairness.token_counts({name: data.tiktoken_encoding(name).encode}, few)[name]
    assert ours == theirs == {lang: fairness.PUBLISHED[name][lang] for lang in FEW_LANGUAGES}


def test_token_counts_counts_anything_with_a_length():
    texts = {"eng_Latn": "hi", "hin_Deva": "नमस्ते"}
    counts = fairness.token_counts({"bytes": str.encode, "characters": list}, texts)
    assert counts == {
        "bytes": {"eng_Latn": 2, "hin_Deva": 18},
        "characters": {"eng_Latn": 2, "hin_Deva": 6},
    }


def test_premium_divides_by_the_reference():
    counts = {"eng_Latn": 40, "deu_Latn": 50, "mya_Mymr": 480}
    assert fairness.premium(counts, "mya_Mymr") == 12.0
    assert fairness.premium(counts, "eng_Latn") == 1.0
    assert fairness.premium(counts, "eng_Latn", reference="deu_Latn") == 0.8
    with pytest.raises(KeyError):
        fairness.premium(counts, "eng_Latn", reference="tam_Taml")


def test_premiums_are_sorted_cheapest_first():
    counts = {"mya_Mymr": 480, "eng_Latn": 40, "deu_Latn": 50}
    result = fairness.premiums(counts)
    assert list(result) == ["eng_Latn", "deu_Latn", "mya_Mymr"]
    assert math.isclose(result["deu_Latn"], 1.25)


@pytest.mark.parametrize(
    "tokens, context, fitted",
    [
        ([10, 20, 30], 100, 3),
        ([10, 20, 30], 60, 3),
        ([10, 20, 30], 59, 2),
        ([50], 40, 0),
        ([], 10, 0),
        ([30, 100, 5], 40, 1),
    ],
)
def test_sentences_that_fit_stops_at_the_first_that_does_not(tokens, context, fitted):
    assert fairness.sentences_that_fit(tokens, context) == fitted
