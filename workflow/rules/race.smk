# The race (beyond the papers): every method on every real matrix, accuracy and confidence budgets.


rule race_block:
    """One block of runs [a, b) of every method on one matrix (the profile's ``race.rep_block``): each run's pick at
    every budget. Keyed streams make the blocks exactly the runs of one batch."""
    input:
        nb="notebooks/race_block.ipynb",
    output:
        csv=f"{RES}/race/blocks/{{dataset}}.b{{block}}.csv.gz",
    benchmark:
        f"{BENCH}/race_block/race_block_{{dataset}}_b{{block}}.tsv"
    log:
        nb=f"{LOG}/race_block_{{dataset}}_b{{block}}.log",
        executed=f"{LOG}/notebooks/race_block_{{dataset}}_b{{block}}.ipynb",
        progress=f"{LOG}/race_block_{{dataset}}_b{{block}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("race", threads=True, progress=True),
    resources:
        **res("race_block"),
    shell:
        JOB_NOTEBOOK


rule race_dataset:
    """One matrix of the race: every method's accuracy at budgets of 1% to 30%, exact intervals (from its blocks of
    runs where the profile sets ``race.rep_block``)."""
    input:
        nb="notebooks/race_dataset.ipynb",
        **({"blocks": expand(f"{RES}/race/blocks/{{dataset}}.b{{block}}.csv.gz", block=RACE_BLOCKS,
                             allow_missing=True)} if RACE_BLOCKS else {}),
    output:
        acc=f"{RES}/race/{{dataset}}.csv",
        fig=f"{FIG}/race/{{dataset}}.png",
    benchmark:
        f"{BENCH}/race_dataset/race_dataset_{{dataset}}.tsv"
    log:
        nb=f"{LOG}/race_dataset_{{dataset}}.log",
        executed=f"{LOG}/notebooks/race_dataset_{{dataset}}.ipynb",
        progress=f"{LOG}/race_dataset_{{dataset}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("race", threads=True, progress=True),
    resources:
        **res("race_dataset"),
    shell:
        JOB_NOTEBOOK


rule race_split_dataset:
    """One matrix's seeded test half: the PULSE family (V fitted on the train half) and the comparison methods."""
    input:
        nb="notebooks/race_dataset.ipynb",
    output:
        acc=f"{RES}/race/split/{{dataset}}.csv",
        fig=f"{FIG}/race/split/{{dataset}}.png",
    benchmark:
        f"{BENCH}/race_split_dataset/race_split_dataset_{{dataset}}.tsv"
    log:
        nb=f"{LOG}/race_split_dataset_{{dataset}}.log",
        executed=f"{LOG}/notebooks/race_split_dataset_{{dataset}}.ipynb",
        progress=f"{LOG}/race_split_dataset_{{dataset}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("race", threads=True, progress=True, split=True),
    resources:
        **res("race_split_dataset"),
    shell:
        JOB_NOTEBOOK


rule race:
    """CB_T per method and matrix from the per-matrix tables, the race figure, the SySRs and auto claims."""
    input:
        nb="notebooks/race.ipynb",
        accs=expand(rules.race_dataset.output.acc, dataset=RACE_DATASETS)
        + expand(rules.race_split_dataset.output.acc, dataset=RACE_SPLIT_DATASETS),
    output:
        nb=f"{RES}/notebooks/race.ipynb",
        acc=f"{FIG}/race_accuracy.csv",
        cb=f"{FIG}/race_cb.csv",
        fig=f"{FIG}/race.png",
        claims=f"{RES}/claims/race.csv",
        **({"split_fig": f"{FIG}/race_split.png"} if RACE_SPLIT_DATASETS else {}),
    benchmark:
        f"{BENCH}/race/race.tsv"
    log:
        nb=f"{LOG}/race.log",
        progress=f"{LOG}/race.progress.log",
    threads: THREADS
    params:
        nb=papermill("race", threads=True, progress=True),
    resources:
        **res("race"),
    shell:
        NOTEBOOK


register(rules.race)
