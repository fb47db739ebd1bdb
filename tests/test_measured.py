"""Issue 69, item 5: "What we measured" in short bullets, with the per-dataset lists as tables
(paperlib.pipeline.measured)."""

import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from ledger_rows import row

from paperlib.pipeline import notebook as nb
from paperlib.pipeline.measured import layout, markdown

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = "holds|fails|partly|inconclusive|untestable|not reproduced"
NAMES = ["sysrs_gsm", "sysrs_math", "alpacaeval2", "sysrs_musr", "zeroeval_gsm8k"]


def words(text: str) -> Counter:
    """The text's words without the separators that layout() consumes (commas, semicolons, colons, full stops and
    the ledger's " || " between data kinds)."""
    return Counter(w.strip(",;:.") for w in text.split() if w.strip(",;:.") and w != "||")


def shown_words(measured: str) -> Counter:
    out = Counter()
    for s in layout(measured):
        out += words(s.text)
        for name, value in s.table:
            out += words(name) + words(value)
    return out


def test_a_per_dataset_list_becomes_a_table_under_the_words_that_introduce_it():
    text = ("ucbe needs fewer calls on 5 of 5 matrices; median share: "
            + ", ".join(f"{n}: {10 + k}.0% (p = 0.0{k})" for k, n in enumerate(NAMES)) + ". The rest is prose")
    got = layout(text)
    assert got[0].text == "ucbe needs fewer calls on 5 of 5 matrices; median share:"
    assert got[0].table == [(n, f"{10 + k}.0% (p = 0.0{k})") for k, n in enumerate(NAMES)]
    assert [s.text for s in got[1:]] == ["The rest is prose"]


def test_a_per_method_list_is_a_table_and_a_method_word_in_prose_is_not_an_item():
    methods = ["pulse", "pulse-pw", "pulse-sync", "naive-pooling"]
    text = "; ".join(f"{m}: fails (shown on {k} of 18)" for k, m in enumerate(methods))
    (got,) = layout(text)
    assert got.text == "" and got.table == [(m, f"fails (shown on {k} of 18)") for k, m in enumerate(methods)]
    assert "    | method | measured |" in markdown(text)
    # "ucbe vs row-mean:" opens the first dataset item; the methods in it are prose, not rows
    text = "median share, ucbe vs row-mean: " + ", ".join(f"{n}: {k}%" for k, n in enumerate(NAMES))
    (got,) = layout(text)
    assert got.text == "median share, ucbe vs row-mean:" and [n for n, _ in got.table] == NAMES


def test_short_lists_and_lists_of_other_things_stay_in_the_sentence():
    three = "differences " + ", ".join(f"{n} +0.0{k}" for k, n in enumerate(NAMES[:3]))
    assert [(s.text, s.table) for s in layout(three)] == [(three, [])]
    letters = "a: 1, b: 2, c: 3, d: 4, e: 5"
    assert [(s.text, s.table) for s in layout(letters)] == [(letters, [])]


def test_items_of_several_pieces_and_a_repeated_name_start_a_new_table():
    pools = ["bench1-full", "bench2-gap0.01", "synth_medium-full", "alpacaeval2-full"]
    lam = "mean lambda " + ", ".join(f"{p} 0.{k}" for k, p in enumerate(pools))
    cells = "; ".join(f"{p}: {k}/10 cells violated (K = 5); runs 0/200; largest 0.{k}" for k, p in enumerate(pools))
    got = layout(f"{lam}; {cells}")
    assert got[0].text == "mean lambda:" and [n for n, _ in got[0].table] == pools
    assert got[1].text == "" and got[1].table[2] == (pools[2], "2/10 cells violated (K = 5); runs 0/200; largest 0.2")


def test_every_committed_row_keeps_its_words():
    """Nothing is dropped or reworded: the bullets and table cells of each row of the paper ledger hold the
    measurement's words, each as often (the separators aside); and the long rows are cut into bullets or tables."""
    claims = pd.read_csv(ROOT / "figures" / "paper" / "claims.csv")
    tables = 0
    for c in claims.itertuples():
        assert shown_words(c.measured) == words(c.measured), c.claim
        tables += sum(bool(s.table) for s in layout(c.measured))
        # a bullet under the row never reads as a verdict line of its own ("- pulse: fails (...)": a per-method list
        # is a table under the row's line)
        lone = [ln for ln in markdown(c.measured) if re.match(rf"\s*- [\w-]+: ({VERDICTS})\b", ln)]
        assert not lone, f"{c.claim}: {lone}"
        longest = max((len(s.text.split()) for s in layout(c.measured)), default=0)
        assert longest <= 80, f"{c.claim}: a bullet of {longest} words"  # the longest measurement has 297
    assert tables >= 10


def test_a_long_sentence_without_a_table_is_cut_at_its_semicolons():
    clause = "the interval covers the mean at every budget checked here"
    long = "; ".join([clause] * 4)  # 40 words
    assert [s.text for s in layout(long)] == [clause] * 4
    assert [s.text for s in layout("; ".join([clause] * 2))] == ["; ".join([clause] * 2)]  # 20 words: one bullet


def test_what_we_measured_keeps_the_row_line_and_nests_the_measurement():
    measured = "saving per pool: " + ", ".join(f"{n}-full: {k}%" for k, n in enumerate(NAMES)) + ". Maximum 4%"
    md = nb.what_we_measured([row("Zhou et al. 2025", "zhou-x", "holds", "A statement", "ev", measured)]).data
    lines = md.splitlines()
    assert re.fullmatch(r"- \*\*holds\*\*(?: \(smoke\))? `zhou-x` — A statement", lines[2])
    assert lines[3] == "  - saving per pool:"
    assert "    | pool | measured |" in lines and "    | `sysrs_gsm-full` | 0% |" in lines
    assert lines[-1 if "smoke" not in md else lines.index("  - Maximum 4%")] == "  - Maximum 4%"


def test_angle_brackets_show_as_written():
    assert markdown("read results/<profile>/x.csv") == ["  - read results/&lt;profile>/x.csv"]


@pytest.mark.parametrize("text", ["", "one sentence only", "a || b"])
def test_markdown_of_plain_text_is_bullets(text):
    assert all(line.startswith("  - ") for line in markdown(text))


# where a verdict word may stand in a measurement: as the verdict of a named fit, row or reading, never as a word of
# the description ("the inequality holds at 100% of points" reads as a second verdict of the row)
VERDICT_LABEL = r"(?:fit \d+: |published fit: |fits together: |`[\w.-]+`, |graded )"


def descriptive_verdict_words(measured: str) -> list[str]:
    """The verdict words of a measurement that no label names as a verdict, each with its context."""
    text = str(measured)
    return [text[max(0, m.start() - 40):m.end() + 20] for m in re.finditer(rf"\b(?:{VERDICTS}|hold|fail)\b", text)
            if not re.search(rf"{VERDICT_LABEL}$", text[:m.start()])]


def test_descriptive_verdict_words_tells_a_named_verdict_from_a_word_of_the_description():
    assert descriptive_verdict_words("fit 1: holds; fit 2: partly; the published fit: holds") == []
    assert descriptive_verdict_words("Step 1's fit (`pulse-x`, partly); graded fails in its own row") == []
    assert descriptive_verdict_words("the inequality holds at 100% of points") == [
        "the inequality holds at 100% of points"]
    assert descriptive_verdict_words("as the authors' code runs it (fails): 0.72") == [
        "as the authors' code runs it (fails): 0.72"]


@pytest.mark.parametrize("profile", ["paper", "quick"])
def test_a_measurement_uses_verdict_words_only_as_named_verdicts(profile):
    claims = pd.read_csv(ROOT / "figures" / profile / "claims.csv")
    found = {c.claim: descriptive_verdict_words(c.measured) for c in claims.itertuples()}
    assert not {k: v for k, v in found.items() if v}
