# One DAG for every figure, table and ledger row of the three papers. Run it through a profile:
#   snakemake --profile profiles/quick      (CPU, minutes)
#   snakemake --profile profiles/paper      (published scale, GPU)
# Each rule executes one parameterised notebook with papermill and hands it only its paper's block
# of the configuration; see workflow/rules/common.smk.
include: "workflow/rules/common.smk"
include: "workflow/rules/zhou.smk"
include: "workflow/rules/robin.smk"
include: "workflow/rules/pulse.smk"
include: "workflow/rules/search.smk"
include: "workflow/rules/race.smk"
include: "workflow/rules/ledger.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        rules.claims.output,
        rules.zhou_fig3.output.fig,
        rules.zhou_fig4.output.fig,
        rules.zhou_fig1.output.fig,
        rules.zhou_datasets.output,
        rules.zhou_corollary1.output.fig,
        rules.robin_data.output,
        rules.robin_summary.output,
        rules.robin_theory.output,
        rules.pulse_summary.output,
        rules.pulse_coverage.output,
        rules.pulse_lowrank.output.csv,
        rules.search_certified.output.fig,
        rules.race.output.fig,
