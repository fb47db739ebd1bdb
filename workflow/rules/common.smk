# Shared set-up of every rule file: configuration (validated on load), output folders, helpers.
import re
import sys
from pathlib import Path

import yaml
from snakemake.utils import validate

sys.path.insert(0, str(Path(workflow.basedir)))
from paperlib.data import available
from paperlib.papers.completeness import absent_datasets, output_tag, report
from paperlib.papers.config import SCHEMA_FILE, ConfigError, check_semantics, paper_config
from paperlib.papers.pulse.coverage import coverage_pools
from paperlib.papers.pulse.experiments import cv_pools, pool_names
from paperlib.papers.race.experiments import split_datasets
from paperlib.papers.robin.experiments import cell_names


# The default profile, only when no profile or --configfile gave one: Snakemake would otherwise merge
# quick.yaml under every other profile (a smoke run would inherit quick's extra keys).
if "profile" not in config:

    configfile: "paperlib/config/quick.yaml"


validate(config, str(SCHEMA_FILE))  # paperlib/papers/config.schema.yaml, $refs each paper's schema
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
SUMMARY = report(config, ABSENT)
if SUMMARY:
    print(SUMMARY, file=sys.stderr)


onsuccess:
    if SUMMARY:
        print(SUMMARY, file=sys.stderr)


onerror:
    if SUMMARY:
        print(SUMMARY, file=sys.stderr)

THREADS = 1
PAPERMILL = "papermill --no-progress-bar -k python3"

DATASETS = [d for d in config["zhou"]["datasets"] if available(d)]
ABLATION_DATASETS = [d for d in config["zhou"]["ablation"]["datasets"] if available(d)] or DATASETS[:1]
RACE_DATASETS = [d for d in config["race"]["datasets"] if available(d)]
RACE_SPLIT_DATASETS = split_datasets(config["race"])
ROBIN_CELLS = cell_names(paper_config(config, "robin"))
PULSE_POOLS = pool_names(paper_config(config, "pulse"))
CV_POOLS = cv_pools(paper_config(config, "pulse"))
COVERAGE_POOLS = coverage_pools(paper_config(config, "pulse"))


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
    pool=one_of(PULSE_POOLS),


def notebook_params(paper, **values):
    """papermill -y YAML: this paper's block of the config (plus seed), the device, and ``values`` (lists of input
    tables, optional outputs): a list or a None travels as YAML, never as a shell word, so an empty list stays an
    empty list (``-p name ''`` would vanish from the command line and shift papermill's arguments).

    Passed as a rule param, so editing one paper's block reruns only that paper's jobs, and
    --config / --configfile overrides reach the notebooks.
    """
    extra = {k: (list(v) if v is not None and not isinstance(v, str) else v) for k, v in values.items()}
    return yaml.safe_dump({paper: paper_config(config, paper), "device": config.get("device"), **extra},
                          default_flow_style=True, width=10**9).strip()
