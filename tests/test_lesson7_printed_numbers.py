"""Lesson 7 quotes a number only after a cell has printed it: the reader meets the output first,
and the test reads the prose's numbers from that output (issue 26's shortening pass)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import regex

LESSON = Path(__file__).parents[1] / "notebooks" / "07_beyond_bpe.ipynb"


def printed_by(cells: list, text: str) -> tuple[int, str]:
    """The index of the first code cell whose output contains `text`, and all it printed."""
    for i, cell in enumerate(cells):
        if cell.cell_type == "code":
            output = "".join(o.get("text", "") for o in cell.outputs)
            if text in output:
                return i, output
    raise AssertionError(f"no cell prints {text!r}")


def quoted_in(cells: list, words: str) -> list[int]:
    """The indices of the markdown cells that say `words` (line breaks read as spaces)."""
    return [
        i
        for i, cell in enumerate(cells)
        if cell.cell_type == "markdown" and words in " ".join(cell.source.split())
    ]


def test_wordpieces_unk_shares_are_printed_before_the_prose_quotes_them():
    """The trap's shares (80% of Tamil's tokens, 88% of Burmese's are [UNK]) were quoted one cell
    before the cell that prints them."""
    cells = nbformat.read(LESSON, as_version=4).cells
    printing, output = printed_by(cells, "of WordPiece's tokens are [UNK]")
    shares = dict(regex.findall(r"(Tamil|Burmese) +([\d.]+)% of WordPiece", output))
    quoted = "{:.0f}% of its Tamil tokens and {:.0f}% of its Burmese ones are `[UNK]`".format(
        float(shares["Tamil"]), float(shares["Burmese"])
    )
    quoting = quoted_in(cells, quoted)
    assert quoting and min(quoting) > printing, "quoted before it is printed"


def test_sentencepieces_nfkc_disagreement_is_printed_before_the_prose_quotes_it():
    """'71 of 1,012 Yoruba sentences, 49 Burmese and 20 Arabic' was quoted, never printed."""
    cells = nbformat.read(LESSON, as_version=4).cells
    printing, output = printed_by(cells, "SentencePiece's nfkc differs on")
    found = dict(regex.findall(r"(\w+): SentencePiece's nfkc differs on (\d+ of [\d,]+)", output))
    burmese, arabic = (found[name].split(" of ")[0] for name in ("Burmese", "Arabic"))
    quoting = quoted_in(cells, f"on {found['Yoruba']} Yoruba sentences")
    assert quoting and min(quoting) > printing, "quoted before it is printed"
    said = " ".join(cells[quoting[0]].source.split())
    assert f"), {burmese} Burmese and {arabic} Arabic." in said


def test_the_abcabc_scores_are_printed_before_the_prose_quotes_them():
    """c26 quoted −12.3 and −13.0 before any cell printed them."""
    cells = nbformat.read(LESSON, as_version=4).cells
    printing, output = printed_by(cells, "a + bc + a + bc score")
    scores = dict(regex.findall(r"^([a-c +]+?) +score (-[\d.]+)$", output, flags=regex.M))
    best, other = (scores[k].replace("-", "−") for k in ("ab + ca + bc", "a + bc + a + bc"))
    quoting = quoted_in(
        cells, f"`ab` + `ca` + `bc` ({best}) beats `a` + `bc` + `a` + `bc` ({other})"
    )
    assert quoting and min(quoting) > printing, "quoted before it is printed"


def test_englishs_unseen_characters_are_printed_before_the_prose_counts_them():
    """c43 counted 12 characters, 9 different, that no training sentence has; no cell did."""
    cells = nbformat.read(LESSON, as_version=4).cells
    printing, output = printed_by(cells, "English characters in no training sentence:")
    found = regex.search(r"no training sentence: (\d+), (\d+) different", output)
    assert found, "the cell prints how many, and how many different"
    said = f"spell {found[1]} characters (two bytes each) that no training sentence contains, "
    quoting = quoted_in(cells, said + f"{found[2]} different ones")
    assert quoting and min(quoting) > printing, "quoted before it is printed"


def test_wordpiece_premiums_own_up_to_their_unknown_tokens():
    """Review rev26x F5: WordPiece's premiums on Chinese and Korean count [UNK]s, text it lost,
    which a premium should not hide (c68): the caveat quotes the counts the table printed."""
    cells = nbformat.read(LESSON, as_version=4).cells
    table, output = printed_by(cells, "WordPiece [UNK]")
    unknown = dict(regex.findall(r"(Chinese \(Simplified\)|Korean) .* ([\d,]+)\n", output))
    said = "WordPiece's Chinese and Korean include {} and {} `[UNK]`s".format(
        unknown["Chinese (Simplified)"], unknown["Korean"]
    )
    assert quoted_in(cells, said) and min(quoted_in(cells, said)) > table
