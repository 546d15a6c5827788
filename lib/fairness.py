"""Lesson 6: how many tokens the same content costs in different languages.

FLORES-200 gives the same 2009 sentences in every language, so counting tokens per language
compares tokenizers on *meaning held fixed*. The **premium** of a language is its count divided by
English's: a premium of 3 means the same content costs three times the tokens.

Petrov et al., "Language Model Tokenizers Introduce Unfairness Between Languages" (NeurIPS 2023),
published such counts; `petrov_text` rebuilds their input string exactly, so that our counts can
be checked against `PUBLISHED`, number for number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sized

from lib import data

REFERENCE = "eng_Latn"

#: Petrov et al.'s published counts for the course's 32 languages, from
#: github.com/AleksandarPetrov/tokenization-fairness, assets/tokenization_lengths.csv (commit
#: 365c3f8), columns "GPT-2", "cl100k_base", "ByT5" (one token per UTF-8 byte) and "UTF-32" (one
#: token per character).
_PUBLISHED_COLUMNS = ("gpt2", "cl100k_base", "bytes", "characters")
_PUBLISHED_ROWS = {
    "amh_Ethi": (409343, 405644, 445855, 174268),
    "arb_Arab": (231316, 160485, 413881, 228923),
    "ben_Beng": (507509, 308325, 676264, 254327),
    "deu_Latn": (112600, 83450, 307304, 302377),
    "ell_Grek": (343953, 271846, 562986, 310159),
    "eng_Latn": (52567, 52835, 259396, 259170),
    "fin_Latn": (119621, 105276, 287021, 276102),
    "fra_Latn": (104971, 84407, 320613, 308489),
    "heb_Hebr": (231019, 193616, 359555, 201565),
    "hin_Deva": (392092, 253270, 661374, 258472),
    "ind_Latn": (104006, 82006, 281022, 280788),
    "ita_Latn": (105594, 86628, 307457, 305238),
    "jpn_Jpan": (157858, 121627, 329167, 113611),
    "kat_Geor": (727866, 520316, 764251, 283885),
    "kor_Hang": (266663, 125737, 310727, 130986),
    "mar_Deva": (413498, 267905, 693619, 261180),
    "mya_Mymr": (887930, 618268, 911313, 320882),
    "pes_Arab": (279481, 173333, 440163, 244860),
    "por_Latn": (101774, 78313, 289511, 281590),
    "rus_Cyrl": (301727, 131496, 514650, 282208),
    "spa_Latn": (104549, 81735, 314077, 308284),
    "swh_Latn": (112044, 103109, 272166, 271792),
    "tam_Taml": (819110, 404265, 822452, 302271),
    "tel_Telu": (688151, 440831, 694562, 261716),
    "tha_Thai": (475633, 231995, 713841, 248859),
    "tur_Latn": (127797, 101176, 289924, 266383),
    "ukr_Cyrl": (302058, 158296, 483479, 265408),
    "urd_Arab": (331280, 231974, 455529, 256560),
    "vie_Latn": (238544, 129258, 360436, 272596),
    "yor_Latn": (204447, 156430, 332203, 251232),
    "zho_Hans": (168850, 101138, 240075, 87445),
    "zho_Hant": (165883, 114977, 229715, 81884),
}
#: {"gpt2": {lang: count}, "cl100k_base": {...}, "bytes": {...}, "characters": {...}}
PUBLISHED: dict[str, dict[str, int]] = {
    column: {lang: row[i] for lang, row in _PUBLISHED_ROWS.items()}
    for i, column in enumerate(_PUBLISHED_COLUMNS)
}


def petrov_text(lang: str) -> str:
    """One language's FLORES-200 dev and devtest sentences, as the one string Petrov et al. counted.

    They read each file whole, split it at every "\\n" and joined all the pieces with a space.
    Because every file ends with a newline, each split also yields an empty last piece, so the
    string has two spaces where dev meets devtest and one space at the very end. Leave those two
    extra spaces out and every count comes out one or two tokens lower than theirs.
    """
    return " ".join(data.flores(lang, "dev") + [""] + data.flores(lang, "devtest") + [""])


def token_counts(
    encoders: Mapping[str, Callable[[str], Sized]], texts: Mapping[str, str]
) -> dict[str, dict[str, int]]:
    """Count tokens: `{encoder name: {lang: len(encode(text))}}` for every encoder and text.

    An "encoder" is anything that turns a string into a sequence whose length we count: a
    tokenizer's `encode`, but also `str.encode` (one token per UTF-8 byte) or `list` (one token
    per character), so bytes and characters fit in the same table as real tokenizers.
    """
    return {
        name: {lang: len(encode(text)) for lang, text in texts.items()}
        for name, encode in encoders.items()
    }


def premium(counts: Mapping[str, int], lang: str, reference: str = REFERENCE) -> float:
    """How many times more tokens `lang` needs than `reference` for the same content."""
    return counts[lang] / counts[reference]


def premiums(counts: Mapping[str, int], reference: str = REFERENCE) -> dict[str, float]:
    """The premium of every language in `counts`, sorted from cheapest to most expensive."""
    ratios = {lang: premium(counts, lang, reference) for lang in counts}
    return dict(sorted(ratios.items(), key=lambda item: item[1]))


def sentences_that_fit(sentence_tokens: Iterable[int], context_length: int) -> int:
    """How many sentences, taken in order, fit together into a context of `context_length` tokens.

    A chat model sees at most its context length in tokens; a language with a premium of 3 fits
    about a third as many sentences of the same document into the same window.
    """
    used = fitted = 0
    for n in sentence_tokens:
        if used + n > context_length:
            break
        used += n
        fitted += 1
    return fitted


def gini(values: Iterable[float]) -> float:
    """The Gini coefficient of `values`: 0 when all are equal, towards 1 when one holds all.

    It is the mean absolute difference between any two values, divided by twice their mean, so
    it does not change when every value is scaled. Foroutan et al. (2025) report it for the token
    counts of parallel text: 0 would mean every language pays the same number of tokens.

    >>> gini([5, 5, 5]), gini([0, 0, 0, 4])
    (0.0, 0.75)
    """
    values = list(values)
    if not values or sum(values) <= 0:
        raise ValueError("gini needs at least one value and a positive total")
    differences = sum(abs(x - y) for x in values for y in values)
    return differences / (2 * len(values) * sum(values))


def premium_factors(
    counts: Mapping[str, Mapping[str, int]], lang: str, reference: str = REFERENCE
) -> dict[str, float]:
    """Split `lang`'s `o200k_base` premium into four factors whose product is the premium.

    `counts` holds, per language, the "characters", the UTF-8 "bytes", and the tokens of the
    ablation encoding "o200k vocab + cl100k pattern" and of "o200k_base". Each factor compares one
    step of the way from text to tokens with the same step for `reference`:
    characters (the content itself), utf8 (bytes per character), vocabulary (tokens per byte
    with GPT-4's split pattern) and pattern (what o200k's own split pattern changes on top).
    """
    steps = ("characters", "bytes", "o200k vocab + cl100k pattern", "o200k_base")
    names = ("characters", "utf8", "vocabulary", "pattern")
    factors, previous = {}, None
    for name, step in zip(names, steps, strict=True):
        ratio = counts[step][lang] / counts[step][reference]
        factors[name] = ratio if previous is None else ratio / previous
        previous = ratio
    return factors
