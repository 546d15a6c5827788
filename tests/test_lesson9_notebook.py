"""Lesson 9's notebook says what its code does: the numbers in its prose, what it times, and
nothing that hands exercise 4's answer over before the exercise."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from lib import Tokenizer, added_tokens

NOTEBOOK = Path(__file__).parents[1] / "notebooks/09_tokens_meet_the_model.ipynb"


@pytest.fixture(scope="module")
def cells() -> list:
    return nbformat.read(NOTEBOOK, as_version=4).cells


def test_the_template_costs_in_the_prose_are_the_ones_measured(cells):
    """Section 1 says: the two messages are 10 tokens, ChatML adds 13 and Llama 3 adds 15."""
    gpt4 = Tokenizer.from_tiktoken("cl100k_base")
    chat = added_tokens.add_special_tokens(
        gpt4,
        ["<|im_start|>", "<|im_end|>", "<|begin_of_text|>", "<|start_header_id|>"]
        + ["<|end_header_id|>", "<|eot_id|>"],
    )
    messages = [("system", "Answer briefly."), ("user", "What is 2+2?")]
    content = sum(len(chat.encode_ordinary(text)) for _, text in messages)
    chatml = "".join(f"<|im_start|>{r}\n{t}<|im_end|>\n" for r, t in messages)
    chatml += "<|im_start|>assistant\n"
    llama = "<|begin_of_text|>" + "".join(
        f"<|start_header_id|>{r}<|end_header_id|>\n\n{t}<|eot_id|>" for r, t in messages
    )
    llama += "<|start_header_id|>assistant<|end_header_id|>\n\n"
    added = [len(chat.encode(t, allowed_special="all")) - content for t in (chatml, llama)]
    prose = "".join(c.source for c in cells if c.cell_type == "markdown")
    assert (content, *added) == (10, 13, 15)
    assert "are 10\ntokens; ChatML adds 13 more and Llama 3 adds 15" in prose


def test_the_clock_starts_after_the_tokenizers_first_encode(cells):
    """The first encode builds the tokenizer's tables (about a second): timing it as encoding
    made the extrapolated hours for OpenWebText about twice too many."""
    timed = next(c.source for c in cells if "n_ids = write_ids(gpt2" in c.source)
    before_clock = timed.partition("start = time.perf_counter()")[0]
    assert "gpt2.encode(" in before_clock


def test_no_pointer_to_the_dropout_loop_before_exercise_4(cells):
    """Exercise 4 asks for `segment`'s loop: the prose before it must not send learners there."""
    sources = [c.source for c in cells if c.cell_type == "markdown"]
    exercise = next(i for i, s in enumerate(sources) if "Exercise 4:" in s)
    assert not any("lib/bpe_dropout.py" in s for s in sources[:exercise])


def test_each_added_token_turns_up_in_its_own_demo(cells):
    """Section 3 added ' memmap' and showed a sentence whose only memmap was in `np.memmap`: its
    chunk there is '.memmap', so the new token never fired. Each added token must now appear in
    the demo's ids, and the prose must say why the one in `np.memmap` does not."""
    at = next(i for i, c in enumerate(cells) if "added_tokens.add_tokens(" in c.source)
    tree = ast.parse(cells[at].source)
    added = next(
        ast.literal_eval(node.args[1])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_tokens"
    )
    sentence = next(
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "sentence"
    )
    chat = added_tokens.add_special_tokens(Tokenizer.from_tiktoken("cl100k_base"), ["<|x|>"])
    domain = added_tokens.add_tokens(chat, added)
    pieces = [domain.vocab[i] for i in domain.encode(sentence)]
    assert [token for token in added if token.encode() not in pieces] == []
    if "np.memmap" in sentence:
        assert b".mem" in pieces  # the chunk '.memmap' is cut by cl100k's merges, as before
        assert "`.memmap`" in cells[at + 1].source


def test_the_exercise_headings_look_like_lessons_5_to_8s(cells):
    """'### ✏️ Exercise N: title', with no points in the title, as in the lessons before."""
    headings = re.findall(r"^###.*Exercise.*$", "\n".join(c.source for c in cells), re.M)
    assert len(headings) == 4
    assert all(re.fullmatch(r"### ✏️ Exercise \d: [^()]+", h) for h in headings), headings


def test_the_frontier_section_names_the_cross_word_tokens_lesson_3_learned(cells):
    """Section 6 once said every byte-level BPE of the course cut its text at spaces, then that
    all did from lesson 3's section 8 on; but lesson 3's trainers without a split pattern learned
    `of·the·` and `your·dog?·I·love·my·dog`, as its stored outputs show. The claim holds only for
    BPE with a split pattern, and must say so."""
    lesson3 = nbformat.read(NOTEBOOK.parent / "03_training_bpe.ipynb", as_version=4).cells
    printed = "".join(
        o.get("text", "") for c in lesson3 if c.cell_type == "code" for o in c.outputs
    )
    assert "of + ·the· -> of·the·" in printed and "your·dog?·I·love·my·dog" in printed
    frontier = next(c.source for c in cells if c.source.startswith("## 6."))
    frontier = " ".join(frontier.split())
    claim = frontier.split("(Without a pattern")[0]
    assert "that cut its text with a split pattern" in claim and "section 8" not in claim
    assert "learned `of·the·` and `your·dog?·I·love·my·dog`" in frontier


def test_openwebtexts_size_is_the_published_count_and_its_units_agree(cells):
    """Review J10: "38 GiB of text, 40 GB" was off: Hugging Face's OpenWebText holds 39,769,494,896
    bytes of text in 8,013,769 documents, 39.8 GB or 37.0 GiB."""
    source = next(c.source for c in cells if "OWT_BYTES = " in c.source)
    line = next(line for line in source.splitlines() if line.startswith("OWT_BYTES = "))
    value = ast.literal_eval(line.partition("=")[2].partition("#")[0].strip())
    assert value == 39_769_494_896
    comment = line.partition("#")[2]
    assert f"{value / 1e9:.1f} GB" in comment and f"({value / 2**30:.1f} GiB)" in comment


def test_grow_embeddings_says_in_its_text_that_new_rows_need_lists_of_their_own(cells):
    """Review J9: `[mean] * n_new` gets full marks (answers reach the check as numbers); only
    hint 2 said so. The exercise's own text says it, where every learner reads it."""
    text = next(c.source for c in cells if "Exercise 2: grow an embedding matrix" in c.source)
    assert "`[row] * 2` holds one list twice" in text
    assert "cannot see this" in text
