# Shared set-up of every rule file: configuration (validated on load), output folders, helpers.
import functools
import re
import sys
from pathlib import Path

import yaml
from snakemake.utils import update_config, validate

sys.path.insert(0, str(Path(workflow.basedir)))
from paperlib.data import available
from paperlib.threads import TABLE_THREADS
from paperlib.pipeline.completeness import absent_datasets, output_tag, report
from paperlib.pipeline.config import SCHEMA_FILE, ConfigError, check_semantics, paper_config
from paperlib.papers.pulse.coverage import coverage_blocks, coverage_pools
from paperlib.papers.zhou.experiments import n_blocks
from paperlib.papers.pulse.experiments import cv_pools, extra_fits, fit_blocks, fit_pools, pool_blocks, pool_names
from paperlib.beyond.race.experiments import dataset_blocks, split_datasets
from paperlib.papers.robin.experiments import cell_blocks, cell_names
from paperlib.beyond.search.experiments import search_blocks


# The default profile, only when no profile or --configfile gave one: Snakemake would otherwise merge
# quick.yaml under every other profile (a smoke run would inherit quick's extra keys).
if "profile" not in config:

    configfile: "paperlib/config/quick.yaml"


def _typed(value):
    """A ``--config`` value as YAML reads it: Snakemake parses ``pulse='{reps: 500}'`` with YAML's base loader,
    which merges the mapping into the profile's block but keeps every scalar a string ('500')."""
    if isinstance(value, str):
        return yaml.safe_load(value) if value.strip() else value
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return value


update_config(config, _typed(dict(workflow.config_settings.config)))
validate(config, str(SCHEMA_FILE))  # paperlib/pipeline/config.schema.yaml, $refs each paper's schema
try:
    check_semantics(config)
except ConfigError as exc:
    raise WorkflowError(str(exc))

P = config["profile"]
# a run without some of the profile's data writes to <profile>-partial, never over the committed figures/<profile>
ABSENT = absent_datasets(config)  # checks every dataset file once
OUT = output_tag(config, ABSENT)
RES = f"results/{OUT}"
FIG = f"figures/{OUT}"
LOG = f"logs/{OUT}"
# Snakemake's benchmark of every job (wall and CPU seconds, peak memory), committed per profile: the methods page's
# cost of a rerun is built from these files (paperlib.pipeline.costs)
BENCH = f"{RES}/benchmarks"
SUMMARY = report(config, ABSENT)
if SUMMARY:
    print(SUMMARY, file=sys.stderr)


onsuccess:
    if SUMMARY:
        print(SUMMARY, file=sys.stderr)


onerror:
    if SUMMARY:
        print(SUMMARY, file=sys.stderr)

# one torch thread a job: the count every committed table was made with (paperlib.threads.TABLE_THREADS)
THREADS = TABLE_THREADS
PAPERMILL = "papermill --no-progress-bar -k python3"

DATASETS = [d for d in config["zhou"]["datasets"] if available(d)]
ZHOU_BLOCKS = list(range(n_blocks(paper_config(config, "zhou"))))
ABLATION_DATASETS = [d for d in config["zhou"]["ablation"]["datasets"] if available(d)] or DATASETS[:1]
RACE_DATASETS = [d for d in config["race"]["datasets"] if available(d)]
# the race's blocks of runs, where the profile sets race.rep_block (else each matrix runs in one job)
RACE_BLOCKS = dataset_blocks(paper_config(config, "race")) if config["race"].get("rep_block") else []
RACE_SPLIT_DATASETS = split_datasets(config["race"])
ROBIN_CELLS = cell_names(paper_config(config, "robin"))
# certified search's blocks of runs (and those of its runs with a prior), where the profile sets search.rep_block
SEARCH_BLOCKS, SEARCH_PRIOR_BLOCKS = [], []
if config["search"].get("rep_block"):
    SEARCH_BLOCKS = search_blocks(paper_config(config, "search"), "certified")
    SEARCH_PRIOR_BLOCKS = search_blocks(paper_config(config, "search"), "prior")
# ROBIN's blocks of runs, where the profile sets robin.rep_block (else each cell runs in one job)
ROBIN_BLOCKS = cell_blocks(paper_config(config, "robin")) if config["robin"].get("rep_block") else []
PULSE_POOLS = pool_names(paper_config(config, "pulse"))
PULSE_BLOCKS = pool_blocks(paper_config(config, "pulse"))
PULSE_FITS = extra_fits(paper_config(config, "pulse"))
PULSE_FIT_BLOCKS = fit_blocks(paper_config(config, "pulse"))
PULSE_FIT_POOLS = fit_pools(paper_config(config, "pulse"))
CV_POOLS = cv_pools(paper_config(config, "pulse"))
COVERAGE_POOLS = coverage_pools(paper_config(config, "pulse"))
COVERAGE_BLOCKS = coverage_blocks(paper_config(config, "pulse"))


RESOURCE_DEFAULTS = {"mem_mb": 4000, "runtime": 45, "gpu": 0}


def res(rule):
    """This rule's cluster resources: the built-in defaults, then the profile's `resources.default`,
    then `resources.<rule>` (validated by the schema)."""
    r = config.get("resources", {})
    return {**RESOURCE_DEFAULTS, **r.get("default", {}), **r.get(rule, {})}


def one_of(names):
    """A wildcard constraint matching exactly the given names."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


wildcard_constraints:
    dataset=one_of(sorted(set(DATASETS) | set(ABLATION_DATASETS) | set(RACE_DATASETS))),
    cell=one_of(ROBIN_CELLS),
    block=r"\d+",
    fit=r"\d+",
    pool=one_of(PULSE_POOLS),


TARGETS, FRAGMENTS = [], []


def register(rule):
    """A figure's rule: its outputs become targets of ``all`` and its ledger fragment (output ``claims``, if any) an
    input of the ledger, in the order of registration (the papers' order, as the Snakefile includes them)."""
    TARGETS.append(rule.output)
    if "claims" in rule.output.keys():
        FRAGMENTS.append(rule.output.claims)


NOTEBOOK = "{PAPERMILL} {input.nb:q} {output.nb:q} -y {params.nb:q} > {log.nb:q} 2>&1"
"""The shell command of every notebook rule: all of the notebook's parameters travel in one -y YAML (:func:`papermill`)."""

JOB_NOTEBOOK = "{PAPERMILL} {input.nb:q} {log.executed:q} -y {params.nb:q} > {log.nb:q} 2>&1"
"""A job's notebook (one dataset, pool, cell or block): its executed copy is a log (``logs/<profile>/notebooks/``), not
a result: the reader's folder ``results/<profile>/notebooks/`` holds the summary notebooks, each with its outputs
(issue 69). The job's tables and figures are its results."""


def papermill(part, threads=False, progress=False, **fixed):
    """A rule's ``params.nb``: the notebook's parameters built from the rule itself.

    ``part``'s block of the config (plus seed) and the device; every named input but ``nb`` as ``in_<name>`` (a
    path, or a list for an ``expand``), every named output but ``nb`` as ``out_<name>``, every wildcard by its name,
    when asked ``threads`` and the progress log :func:`progress_log` as ``progress_log``, and ``fixed`` values. Each of them must be a
    parameter of the notebook (its parameters cell), so a renamed output cannot silently miss its notebook.
    """

    def params(wildcards, input, output):
        values = {f"in_{k}": v if isinstance(v, str) else list(v) for k, v in input.items() if k != "nb"}
        values.update({f"out_{k}": v for k, v in output.items() if k != "nb"})
        values.update(dict(wildcards.items()))
        if progress:
            values["progress_log"] = progress_log(output.nb if "nb" in output.keys() else output[0])
        if threads:
            values["threads"] = THREADS
        values.update(fixed)
        declared = notebook_parameters(input.nb)
        unknown = sorted(set(values) - declared)
        if unknown:
            raise WorkflowError(f"{input.nb} has no parameter {', '.join(unknown)} (its parameters cell declares "
                                f"{', '.join(sorted(declared))})")
        return notebook_params(part, **values)

    return params


def progress_log(executed_nb):
    """Where a job's progress bars go: ``<LOG>/<executed notebook's name>.progress.log`` (a rule's ``log.progress``)."""
    return f"{LOG}/{Path(executed_nb).stem}.progress.log"


@functools.lru_cache(maxsize=None)
def notebook_parameters(path):
    import papermill as pm

    return frozenset(pm.inspect_notebook(str(path)))


def notebook_params(paper, **values):
    """papermill -y YAML: this paper's block of the config (plus seed), the device, and ``values`` (lists of input
    tables, optional outputs): a list or a None travels as YAML, never as a shell word, so an empty list stays an
    empty list (``-p name ''`` would vanish from the command line and shift papermill's arguments).

    Passed as a rule param, so editing one paper's block reruns only that paper's jobs, and
    --config / --configfile overrides reach the notebooks.
    """
    extra = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in values.items()}
    return yaml.safe_dump({paper: paper_config(config, paper), "device": config.get("device"), **extra},
                          default_flow_style=True, width=10**9).strip()
