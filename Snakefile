# One DAG for every figure, table and ledger row. Run through a profile, e.g.
#   snakemake --profile profiles/quick      (CPU, minutes)
#   snakemake --profile profiles/paper      (published scale, GPU)
# Every rule executes a parameterised notebook with papermill; the executed copy is the rule's
# output, and every other output path is passed to the notebook as a parameter.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir)))
from paperlib.config import ConfigError, validate
from paperlib.data import available
from paperlib.judge.experiments import cell_names
from paperlib.pulse.experiments import pool_names

configfile: "config/quick.yaml"

try:
    validate(config)
except ConfigError as exc:
    raise WorkflowError(str(exc))

P = config["profile"]
CONFIG_FILE = f"config/{P}.yaml"
RES = f"results/{P}"
FIG = f"figures/{P}"
LOG = f"logs/{P}"
THREADS = 1
DEVICE = config.get("device") or ""

DATASETS = [d for d in config["zhou"]["datasets"] if available(d)]
MISSING = [d for d in config["zhou"]["datasets"] if d not in DATASETS]
if MISSING:
    print(f"[paperlib] datasets not found (targets skipped; set PAPERLIB_DATA): {', '.join(MISSING)}",
          file=sys.stderr)

ROBIN_CELLS = cell_names(config)
PULSE_POOLS = pool_names(config)

PAPERMILL = "papermill --log-output --no-progress-bar -k python3"


def device_arg():
    return f"-p device {DEVICE}" if DEVICE else ""


rule all:
    input:
        f"{FIG}/claims.md",
        f"{FIG}/claims.csv",
        f"{FIG}/zhou_fig3.png",
        f"{FIG}/zhou_fig4.png",
        f"{FIG}/zhou_fig1.png",
        f"{FIG}/zhou_fig5.png",
        f"{FIG}/zhou_fig6.png",
        f"{FIG}/zhou_table2.csv",
        f"{FIG}/zhou_table3.csv",
        f"{FIG}/zhou_corollary1.png",
        f"{FIG}/robin_fig1.png",
        f"{FIG}/robin_fig2.png",
        f"{FIG}/robin_fig3_5.png",
        f"{FIG}/robin_fig8.png",
        f"{FIG}/robin_fig6_7_9.png",
        f"{FIG}/robin_table2.csv",
        f"{FIG}/robin_theory.png",
        f"{FIG}/pulse_fig1.png",
        f"{FIG}/pulse_fig2.png",
        f"{FIG}/pulse_fig3.png",
        f"{FIG}/pulse_cv.csv",


rule zhou_fig3_dataset:
    """Figure 3, one column: six algorithms x every budget x every metric on one dataset."""
    input:
        nb="notebooks/zhou_fig3_dataset.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/zhou_fig3_dataset_{{dataset}}.ipynb",
        csv=f"{RES}/zhou/fig3/{{dataset}}.csv",
        fig=f"{FIG}/zhou_fig3/{{dataset}}.png",
    log:
        f"{LOG}/zhou_fig3_dataset_{{dataset}}.log",
    threads: THREADS
    params:
        device=device_arg(),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p dataset {wildcards.dataset} "
        "-p out_csv {output.csv} -p out_fig {output.fig} -p threads {threads} {params.device} &> {log}"


rule zhou_fig3:
    """Figure 3 grid, budget-to-precision-1 table, headline claims."""
    input:
        nb="notebooks/zhou_fig3_summary.ipynb",
        config=CONFIG_FILE,
        csvs=expand(f"{RES}/zhou/fig3/{{dataset}}.csv", dataset=DATASETS),
    output:
        nb=f"{RES}/notebooks/zhou_fig3_summary.ipynb",
        fig=f"{FIG}/zhou_fig3.png",
        reach=f"{FIG}/zhou_fig3_budget_to_precision1.csv",
        claims=f"{RES}/claims/zhou_fig3.csv",
    log:
        f"{LOG}/zhou_fig3_summary.log",
    params:
        csvs=lambda wc, input: ",".join(input.csvs),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p in_csvs {params.csvs} "
        "-p out_fig {output.fig} -p out_reach {output.reach} -p out_claims {output.claims} &> {log}"


rule zhou_fig1:
    """Figure 1: cost of finding the best method under a per-call cost model."""
    input:
        nb="notebooks/zhou_fig1_cost.ipynb",
        config=CONFIG_FILE,
        reach=f"{FIG}/zhou_fig3_budget_to_precision1.csv",
    output:
        nb=f"{RES}/notebooks/zhou_fig1_cost.ipynb",
        fig=f"{FIG}/zhou_fig1.png",
        claims=f"{RES}/claims/zhou_fig1.csv",
    log:
        f"{LOG}/zhou_fig1_cost.log",
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p in_reach {input.reach} "
        "-p out_fig {output.fig} -p out_claims {output.claims} &> {log}"


rule zhou_fig4:
    """Figure 4: UCB-E-LRF ablations (score only, batch, ensemble, eta, warm-up, rank)."""
    input:
        nb="notebooks/zhou_fig4_ablations.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/zhou_fig4_ablations.ipynb",
        csv=f"{RES}/zhou/fig4.csv",
        fig=f"{FIG}/zhou_fig4.png",
        claims=f"{RES}/claims/zhou_fig4.csv",
    log:
        f"{LOG}/zhou_fig4_ablations.log",
    threads: THREADS
    params:
        device=device_arg(),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p out_csv {output.csv} "
        "-p out_fig {output.fig} -p out_claims {output.claims} -p threads {threads} {params.device} &> {log}"


rule zhou_datasets:
    """Table 2 (sizes, H1), Figure 5 (histograms), Table 3 / Figure 6 (low-rankness)."""
    input:
        nb="notebooks/zhou_datasets.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/zhou_datasets.ipynb",
        table2=f"{FIG}/zhou_table2.csv",
        table3=f"{FIG}/zhou_table3.csv",
        fig5=f"{FIG}/zhou_fig5.png",
        fig6=f"{FIG}/zhou_fig6.png",
        claims=f"{RES}/claims/zhou_datasets.csv",
    log:
        f"{LOG}/zhou_datasets.log",
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p out_table2 {output.table2} "
        "-p out_table3 {output.table3} -p out_fig5 {output.fig5} -p out_fig6 {output.fig6} "
        "-p out_claims {output.claims} &> {log}"


rule zhou_corollary1:
    """Corollary 1 checker: measured success of UCB-E vs the bound; where the bound is vacuous."""
    input:
        nb="notebooks/zhou_corollary1.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/zhou_corollary1.ipynb",
        csv=f"{RES}/zhou/corollary1.csv",
        fig=f"{FIG}/zhou_corollary1.png",
        claims=f"{RES}/claims/zhou_corollary1.csv",
    log:
        f"{LOG}/zhou_corollary1.log",
    threads: THREADS
    params:
        device=device_arg(),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p out_csv {output.csv} "
        "-p out_fig {output.fig} -p out_claims {output.claims} -p threads {threads} {params.device} &> {log}"


rule robin_data:
    """ROBIN Figures 1-2: per-item variance and mean of every judge x attribute cell."""
    input:
        nb="notebooks/robin_data.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/robin_data.ipynb",
        fig1=f"{FIG}/robin_fig1.png",
        fig2=f"{FIG}/robin_fig2.png",
        csv=f"{FIG}/robin_data.csv",
        claims=f"{RES}/claims/robin_data.csv",
    log:
        f"{LOG}/robin_data.log",
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p out_fig1 {output.fig1} "
        "-p out_fig2 {output.fig2} -p out_csv {output.csv} -p out_claims {output.claims} &> {log}"


rule robin_cell:
    """Uniform, ROBIN and ROBIN-HOOD on one judge x attribute cell, every budget."""
    input:
        nb="notebooks/robin_cell.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/robin_cell_{{cell}}.ipynb",
        csv=f"{RES}/robin/cells/{{cell}}.csv",
    log:
        f"{LOG}/robin_cell_{{cell}}.log",
    threads: THREADS
    params:
        device=device_arg(),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p cell {wildcards.cell} "
        "-p out_csv {output.csv} -p threads {threads} {params.device} &> {log}"


rule robin_summary:
    """ROBIN Figures 3-5, 6-7 and 9, 8 and Table 2; the experimental claims."""
    input:
        nb="notebooks/robin_summary.ipynb",
        config=CONFIG_FILE,
        csvs=expand(f"{RES}/robin/cells/{{cell}}.csv", cell=ROBIN_CELLS),
    output:
        nb=f"{RES}/notebooks/robin_summary.ipynb",
        fig3=f"{FIG}/robin_fig3_5.png",
        fig8=f"{FIG}/robin_fig8.png",
        fig6=f"{FIG}/robin_fig6_7_9.png",
        table2=f"{FIG}/robin_table2.csv",
        table2_md=f"{FIG}/robin_table2.md",
        claims=f"{RES}/claims/robin_summary.csv",
    log:
        f"{LOG}/robin_summary.log",
    params:
        csvs=lambda wc, input: ",".join(input.csvs),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p in_csvs {params.csvs} "
        "-p out_fig3 {output.fig3} -p out_fig8 {output.fig8} -p out_fig6 {output.fig6} "
        "-p out_table2 {output.table2} -p out_table2_md {output.table2_md} -p out_claims {output.claims} &> {log}"


rule robin_theory:
    """ROBIN theorem checkers: Lemma 2, Theorem 3, Theorem 8, Lemmas 6-7, Corollary 9, Theorem 5."""
    input:
        nb="notebooks/robin_theory.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/robin_theory.ipynb",
        csv=f"{FIG}/robin_lemma2.csv",
        fig=f"{FIG}/robin_theory.png",
        claims=f"{RES}/claims/robin_theory.csv",
    log:
        f"{LOG}/robin_theory.log",
    threads: THREADS
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p out_csv {output.csv} "
        "-p out_fig {output.fig} -p out_claims {output.claims} -p threads {threads} &> {log}"


rule pulse_pool:
    """PULSE, UCB-E and Naive-Pooling on one test pool (Accuracy@t at every budget)."""
    input:
        nb="notebooks/pulse_pool.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/pulse_pool_{{pool}}.ipynb",
        csv=f"{RES}/pulse/pools/{{pool}}.csv",
    log:
        f"{LOG}/pulse_pool_{{pool}}.log",
    threads: THREADS
    params:
        device=device_arg(),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p pool {wildcards.pool} "
        "-p out_csv {output.csv} -p threads {threads} {params.device} &> {log}"


rule pulse_summary:
    """PULSE Figures 1-4 (budget to 95%, Accuracy@t, effective budget) and the headline claims."""
    input:
        nb="notebooks/pulse_summary.ipynb",
        config=CONFIG_FILE,
        csvs=expand(f"{RES}/pulse/pools/{{pool}}.csv", pool=PULSE_POOLS),
    output:
        nb=f"{RES}/notebooks/pulse_summary.ipynb",
        fig1=f"{FIG}/pulse_fig1.png",
        fig2=f"{FIG}/pulse_fig2.png",
        fig3=f"{FIG}/pulse_fig3.png",
        table=f"{FIG}/pulse_budget95.csv",
        claims=f"{RES}/claims/pulse_summary.csv",
    log:
        f"{LOG}/pulse_summary.log",
    params:
        csvs=lambda wc, input: ",".join(input.csvs),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p in_csvs {params.csvs} "
        "-p out_fig1 {output.fig1} -p out_fig2 {output.fig2} -p out_fig3 {output.fig3} -p out_table {output.table} "
        "-p out_claims {output.claims} &> {log}"


rule pulse_lowrank:
    """PULSE Step 1: 5-fold CV with the 1-SE rule on each dataset's train split."""
    input:
        nb="notebooks/pulse_lowrank.ipynb",
        config=CONFIG_FILE,
    output:
        nb=f"{RES}/notebooks/pulse_lowrank.ipynb",
        csv=f"{FIG}/pulse_cv.csv",
        claims=f"{RES}/claims/pulse_lowrank.csv",
    log:
        f"{LOG}/pulse_lowrank.log",
    threads: THREADS
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p out_csv {output.csv} "
        "-p out_claims {output.claims} -p threads {threads} &> {log}"


rule pulse_theory:
    """PULSE checkers: Lemmas 1, 2, 5, 6 and Theorems 1, 2."""
    input:
        nb="notebooks/pulse_theory.ipynb",
        config=CONFIG_FILE,
        csvs=expand(f"{RES}/pulse/pools/{{pool}}.csv", pool=PULSE_POOLS),
    output:
        nb=f"{RES}/notebooks/pulse_theory.ipynb",
        claims=f"{RES}/claims/pulse_theory.csv",
    log:
        f"{LOG}/pulse_theory.log",
    threads: THREADS
    params:
        csvs=lambda wc, input: ",".join(input.csvs),
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -p config_file {input.config} -p in_csvs {params.csvs} "
        "-p out_claims {output.claims} -p threads {threads} &> {log}"


rule claims:
    """The claims ledger: every fragment merged into figures/<profile>/claims.{csv,md}."""
    input:
        f"{RES}/claims/zhou_fig3.csv",
        f"{RES}/claims/zhou_fig1.csv",
        f"{RES}/claims/zhou_fig4.csv",
        f"{RES}/claims/zhou_datasets.csv",
        f"{RES}/claims/zhou_corollary1.csv",
        f"{RES}/claims/robin_data.csv",
        f"{RES}/claims/robin_summary.csv",
        f"{RES}/claims/robin_theory.csv",
        f"{RES}/claims/pulse_summary.csv",
        f"{RES}/claims/pulse_lowrank.csv",
        f"{RES}/claims/pulse_theory.csv",
    output:
        csv=f"{FIG}/claims.csv",
        md=f"{FIG}/claims.md",
    log:
        f"{LOG}/claims.log",
    shell:
        "python -m paperlib ledger {input} --csv {output.csv} --md {output.md} &> {log}"
