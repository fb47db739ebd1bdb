# Two entry points (see README): `make reproduce` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PROFILE ?= quick
CORES  ?= all
# what a kernel writes into a notebook's metadata when the notebook is opened: stripped with the outputs, so that
# opening and saving an untouched source notebook leaves git clean (issue 69; tests/test_jupyterlab.py)
NB_EXTRA_KEYS := metadata.language_info.codemirror_mode metadata.language_info.file_extension metadata.language_info.mimetype metadata.language_info.nbconvert_exporter metadata.language_info.pygments_lexer metadata.language_info.version

.PHONY: setup lab reproduce report check-reproduction test test-fast test-slurm lint package benchmark strip-notebooks verify-tables

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)" || { echo "error: $(PYTHON) must be Python >= 3.11; run e.g. make PYTHON=python3.11"; exit 1; }
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e ".[workflow,dev,cluster,inspect]"
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	@# the source notebooks are committed without outputs: git strips them on add (.gitattributes names the filter)
	-git config filter.nbstripout.clean "$(CURDIR)/$(VENV)/bin/nbstripout" && git config filter.nbstripout.smudge cat \
	  && git config filter.nbstripout.required false && git config filter.nbstripout.extrakeys "$(NB_EXTRA_KEYS)"
	touch $@

setup: $(VENV)/.installed

# JupyterLab on the notebooks' index (bound to this machine only; root allowed, as in a container). The executed
# copies under results/ are read-only (the server refuses to save over a committed record), autosave is off (a
# changed parameter reaches a source only when you save it) and the printed URL opens notebooks/index.ipynb
# (paperlib/pipeline/lab.py; settings for this checkout only, in .jupyter-lab/)
LAB_PORT ?= 8888
lab: setup
	@$(PY) -m paperlib.pipeline.lab_port "$(LAB_PORT)"
	@$(PY) -m paperlib.pipeline.lab serve "$(LAB_PORT)" "$(CURDIR)"

reproduce: setup
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(VENV)/bin/snakemake --profile profiles/$(PROFILE) --cores $(CORES)

# the reproduction as a book, from committed results only (no job runs, no data): site/$(REPORT)/index.html and
# site/$(REPORT)/paperlib-$(REPORT).pdf (the PDF needs Chromium; without it the site alone is built)
# Its own light environment (no torch, no workflow: about a minute to set up from PyPI), unless `make setup`'s full one
# is already there; set REPORT_VENV=$(VENV) to use the full one. paperlib goes in last and without its dependencies,
# so that pip has no torch to complain about (the report never imports it).
# `make report REPORT=paper` (or PROFILE=paper, as the other targets take it)
ifeq ($(origin PROFILE),command line)
REPORT ?= $(PROFILE)
endif
REPORT ?= paper
REPORT_VENV ?= $(if $(wildcard $(VENV)/.installed),$(VENV),.venv-report)
REPORT_DEPS = $(shell $(PYTHON) -c "import tomllib; print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['report']))")
.venv-report/.installed: pyproject.toml
	@$(PYTHON) -c "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)" || { echo "error: $(PYTHON) must be Python >= 3.11; run e.g. make PYTHON=python3.11"; exit 1; }
	test -d .venv-report || $(PYTHON) -m venv .venv-report
	.venv-report/bin/python -m pip install -q --disable-pip-version-check $(foreach d,$(REPORT_DEPS),"$(d)")
	.venv-report/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
	touch $@

report: $(REPORT_VENV)/.installed
	$(REPORT_VENV)/bin/python -m paperlib.pipeline.book --profile $(REPORT)

# a fresh quick run in a clean worktree of HEAD (about 35 min on 2 cores), its tables compared with the committed
# figures/quick/ by tolerance; needs the data of the quick profile ($$PAPERLIB_DATA or `paperlib data fetch --all`)
CHECK_DIR ?= $(CURDIR)/.check-reproduction
check-reproduction: setup
	rm -rf $(CHECK_DIR); git worktree prune; git worktree add --detach $(CHECK_DIR) HEAD
	rm -rf $(CHECK_DIR)/figures/quick $(CHECK_DIR)/results/quick
	cd $(CHECK_DIR) && PYTHONPATH=$(CHECK_DIR) PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(CURDIR)/$(VENV)/bin/snakemake --profile profiles/quick --cores $(CORES)
	test -d $(CHECK_DIR)/figures/quick || { echo "the fresh run was incomplete (see its summary): nothing to compare"; exit 1; }
	$(PY) -m paperlib.pipeline.reproduction figures/quick $(CHECK_DIR)/figures/quick

# lint, layer contracts, fast tests, statistical/pipeline tests, every notebook at its defaults; each suite on two
# workers, a test file's tests on one (--dist loadfile); about 12 minutes on 2 cores (docs/implementation.md)
test: setup lint package
	$(VENV)/bin/pytest -m "not slow" -n 2 --dist loadfile tests
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(VENV)/bin/pytest -m slow -n 2 --dist loadfile tests
	$(VENV)/bin/pytest --nbval-lax --nbval-current-env -n 2 --dist loadfile notebooks

test-fast: setup
	$(VENV)/bin/pytest -m "not slow" tests

# the smoke DAG through profiles/slurm on a real one-node SLURM cluster started here (root, Debian; about 10 minutes):
# tests/slurm/run.sh, which ends with "slurm: N jobs submitted with sbatch, N completed; outputs identical to ..."
test-slurm: setup
	SNAKEMAKE=$(CURDIR)/$(VENV)/bin/snakemake PYTHON=$(CURDIR)/$(VENV)/bin/python bash tests/slurm/run.sh

# sdist + wheel from this checkout (no network: the venv's setuptools), checked by twine
package: setup
	rm -rf dist
	$(PY) -m build --no-isolation --sdist --wheel --outdir dist . >/dev/null
	$(VENV)/bin/twine check --strict dist/*

lint: setup
	$(VENV)/bin/ruff check paperlib tests benchmarks
	$(VENV)/bin/lint-imports

# every committed per-run table against today's code: run 0 of every method rerun alone (keyed streams make it the
# committed run) and compared, a line per table with the commit, machine and streams that made it (issue 74, item 3;
# needs $PAPERLIB_DATA; `make verify-tables VERIFY=race` for one family, VERIFY_PROFILE=quick for another profile)
VERIFY_PROFILE ?= paper
VERIFY ?=
verify-tables: setup
	$(PY) -m paperlib verify $(VERIFY) --profile $(VERIFY_PROFILE)

benchmark: setup
	$(PY) benchmarks/bench_zhou.py
	$(PY) benchmarks/bench_robin.py
	$(PY) benchmarks/bench_pulse.py

strip-notebooks: setup
	$(VENV)/bin/nbstripout --extra-keys "$(NB_EXTRA_KEYS)" notebooks/*.ipynb
	$(PY) -m paperlib.pipeline.book --job-notebooks $$(git ls-files 'results/*/notebooks/*.ipynb') | xargs -r $(VENV)/bin/nbstripout
	$(PY) -m paperlib.pipeline.book --compact $$(git ls-files 'results/*/notebooks/*.ipynb')
