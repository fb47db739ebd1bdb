"""`make report` runs in the `report` extra's light environment (issue 74, item 1): the book builder and the PDF
printer must import without the plotting stack or torch. The fresh-clone build itself runs in `.ci/run`."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# every module `python -m paperlib.pipeline.book` loads, imported with matplotlib, seaborn and torch made unimportable
BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {'matplotlib', 'seaborn', 'torch', 'snakemake', 'papermill'}:
            raise ImportError(f'{name} is not in the report environment')
sys.meta_path.insert(0, Block())
import paperlib.pipeline.book, paperlib.pipeline.print_pdf, paperlib.pipeline.pdf_outline
"""


def test_the_report_builder_imports_without_matplotlib_or_torch():
    r = subprocess.run([sys.executable, "-c", BLOCK], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]


def test_the_blocker_would_catch_a_plotting_import():
    # the check above can fail: importing the figures module under the same blocker does
    r = subprocess.run([sys.executable, "-c", BLOCK + "\nimport paperlib.figures\n"], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode != 0 and "not in the report environment" in r.stderr


def test_the_report_extra_has_no_plotting_stack():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["report"]
    names = {e.split(">")[0].split("=")[0].split("<")[0].strip() for e in extra}
    assert not names & {"matplotlib", "seaborn", "torch"}, names

