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
        TARGETS,  # every figure rule's outputs, registered by its rule file
