"""The printed report's bookmarks (issue 58, item 2): the chapters lifted to the top level, titles as the HTML spells
them. The whole PDF is checked in tests/test_report.py; this checks the rules on a small tree."""

from paperlib.pipeline.pdf_outline import Entry, clean_title, heading_titles, restructure
from paperlib.pipeline.print_pdf import printable

PAGE = """<h1>paperlib: evaluating LLMs on a budget, reproduced</h1><h2> Contents </h2>
<h2>Verdicts<a class="headerlink" href="#v">#</a></h2><h2>Where and how this was measured</h2>
<span id="document-zhou"></span><section id="z"><h3>Zhou et al. 2025: On Speeding Up Language Model Evaluation</h3>
<h4>What the paper states, and what we measured</h4></section>
<span id="document-notebooks/zhou_fig1"></span><section id="n"><h4>A notebook</h4></section>
<span id="document-methods"></span><section id="m"><h3>Methods</h3></section>"""  # as Sphinx writes it



def test_titles_doubled_or_glued_are_spelled_as_in_the_html():
    spelled, chapters = heading_titles(printable(PAGE))
    assert clean_title("paperlib: evaluating LLMs on abudget, reproduced", spelled) == (
        "paperlib: evaluating LLMs on a budget, reproduced")
    assert clean_title("VerdictsVerdicts", spelled) == "Verdicts"
    assert clean_title("Zhou et al. 2025: On Speeding Up Language ModelEvaluation", spelled).endswith(
        "Language Model Evaluation")
    assert chapters == {"Zhouetal.2025:OnSpeedingUpLanguageModelEvaluation", "Methods"}  # not the notebook


def test_a_document_anchor_is_printed_inside_its_section():
    """Sphinx's empty anchor before a chapter made a line box of its own: when the page before was full, it was
    printed alone on a blank page before the chapter (page 4 at a 12.6 px font, 2026-11-28)."""
    page = printable(PAGE)
    assert '<section id="z" data-document="zhou"><span id="document-zhou"></span><h3>' in page
    assert '</span><section' not in page


def test_chapters_go_to_the_top_level_and_contents_goes():
    spelled, chapters = heading_titles(printable(PAGE))
    claim = Entry("zhou-fig1", 5, None)
    states = Entry("What the paper states, and what we measuredWhat the paper states, and what we measured", 5, None,
                   [claim])
    zhou = Entry("Zhou et al. 2025: On Speeding Up Language ModelEvaluation", 3, None, [states])
    methods = Entry("Methods", 9, None)
    landing = Entry("paperlib: evaluating LLMs on abudget, reproduced", 0, None, [
        Entry("Contents", 0, None), Entry("VerdictsVerdicts", 1, None),
        Entry("Where and how this was measured", 2, None, [zhou, methods])])
    top = restructure([landing], spelled, chapters)
    assert [e.title for e in top] == ["paperlib: evaluating LLMs on a budget, reproduced",
                                      "Zhou et al. 2025: On Speeding Up Language Model Evaluation", "Methods"]
    assert [e.title for e in top[0].children] == ["Verdicts", "Where and how this was measured"]
    assert top[0].children[1].children == []
    assert top[1].children[0].title == "What the paper states, and what we measured"
    assert top[1].children[0].children == [claim]
