# Zhou et al. 2025, On Speeding Up Language Model Evaluation: Figures 1, 3-6, Tables 2-3, Corollary 1.


rule zhou_fig3_block:
    """Figure 3, one block of repetitions (``zhou.rep_block`` per method) of the six algorithms on one dataset.
    The executed notebook is a log: the small tables are what a later session resumes from."""
    input:
        nb="notebooks/zhou_fig3_block.ipynb",
    output:
        csv=f"{RES}/zhou/fig3/blocks/{{dataset}}.b{{block}}.csv",
        settle=f"{RES}/zhou/fig3/blocks/{{dataset}}.b{{block}}.settle.csv",
    benchmark:
        f"{BENCH}/zhou_fig3_block/zhou_fig3_block_{{dataset}}_b{{block}}.tsv"
    log:
        nb=f"{LOG}/zhou_fig3_block_{{dataset}}_b{{block}}.log",
        executed=f"{LOG}/notebooks/zhou_fig3_block_{{dataset}}_b{{block}}.ipynb",
        progress=f"{LOG}/{{dataset}}.b{{block}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("zhou", threads=True, progress=True),
    resources:
        **res("zhou_fig3_block"),
    shell:
        JOB_NOTEBOOK


rule zhou_fig3_dataset:
    """Figure 3, one column: the blocks of one dataset pooled; its figure and table."""
    input:
        nb="notebooks/zhou_fig3_dataset.ipynb",
        blocks=expand(rules.zhou_fig3_block.output.csv, block=ZHOU_BLOCKS, allow_missing=True),
        block_settles=expand(rules.zhou_fig3_block.output.settle, block=ZHOU_BLOCKS, allow_missing=True),
    output:
        csv=f"{RES}/zhou/fig3/{{dataset}}.csv",
        settle=f"{RES}/zhou/fig3/{{dataset}}.settle.csv",
        fig=f"{FIG}/zhou_fig3/{{dataset}}.png",
    benchmark:
        f"{BENCH}/zhou_fig3_dataset/zhou_fig3_dataset_{{dataset}}.tsv"
    log:
        nb=f"{LOG}/zhou_fig3_dataset_{{dataset}}.log",
        executed=f"{LOG}/notebooks/zhou_fig3_dataset_{{dataset}}.ipynb",
    params:
        nb=papermill("zhou"),
    resources:
        **res("zhou_fig3_dataset"),
    shell:
        JOB_NOTEBOOK


rule zhou_fig3:
    """Figure 3: its summary over the datasets, the per-dataset grids, the budget-to-precision-1 table, the rows."""
    input:
        nb="notebooks/zhou_fig3_summary.ipynb",
        csvs=expand(rules.zhou_fig3_dataset.output.csv, dataset=DATASETS),
        settles=expand(rules.zhou_fig3_dataset.output.settle, dataset=DATASETS),
    output:
        nb=f"{RES}/notebooks/zhou_fig3_summary.ipynb",
        fig=f"{FIG}/zhou_fig3.png",
        summary_fig=f"{FIG}/zhou_fig3_summary.png",
        reach=f"{FIG}/zhou_fig3_budget_to_precision1.csv",
        claims=f"{RES}/claims/zhou_fig3.csv",
    benchmark:
        f"{BENCH}/zhou_fig3/zhou_fig3_summary.tsv"
    log:
        nb=f"{LOG}/zhou_fig3_summary.log",
    params:
        nb=papermill("zhou"),
    resources:
        **res("zhou_fig3"),
    shell:
        NOTEBOOK


rule zhou_fig1:
    """Figure 1: cost of finding the best method under a per-call cost model."""
    input:
        nb="notebooks/zhou_fig1_cost.ipynb",
        reach=rules.zhou_fig3.output.reach,
        settles=rules.zhou_fig3.input.settles,
    output:
        nb=f"{RES}/notebooks/zhou_fig1_cost.ipynb",
        fig=f"{FIG}/zhou_fig1.png",
        claims=f"{RES}/claims/zhou_fig1.csv",
    benchmark:
        f"{BENCH}/zhou_fig1/zhou_fig1_cost.tsv"
    log:
        nb=f"{LOG}/zhou_fig1_cost.log",
    params:
        nb=papermill("zhou"),
    resources:
        **res("zhou_fig1"),
    shell:
        NOTEBOOK


rule zhou_fig4_dataset:
    """Figure 4 on one ablation dataset: UCB-E-LRF with one hyperparameter varied at a time."""
    input:
        nb="notebooks/zhou_fig4_dataset.ipynb",
    output:
        csv=f"{RES}/zhou/fig4/{{dataset}}.csv",
    benchmark:
        f"{BENCH}/zhou_fig4_dataset/zhou_fig4_dataset_{{dataset}}.tsv"
    log:
        nb=f"{LOG}/zhou_fig4_dataset_{{dataset}}.log",
        executed=f"{LOG}/notebooks/zhou_fig4_dataset_{{dataset}}.ipynb",
        progress=f"{LOG}/zhou_fig4_dataset_{{dataset}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("zhou", threads=True, progress=True),
    resources:
        **res("zhou_fig4_dataset"),
    shell:
        JOB_NOTEBOOK


rule zhou_fig4_timing:
    """Sec. 4.5's time cost of b = 2 on one ablation dataset: UCB-E-LRF at b = 2 and b = 32, refitted after every
    batch, in separately timed runs (the same notebook as zhou_fig4_dataset, measure "timing"; rerun it alone, on an
    otherwise idle core)."""
    input:
        nb="notebooks/zhou_fig4_dataset.ipynb",
    output:
        csv=f"{RES}/zhou/fig4_timing/{{dataset}}.csv",
    benchmark:
        f"{BENCH}/zhou_fig4_timing/zhou_fig4_timing_{{dataset}}.tsv"
    log:
        nb=f"{LOG}/zhou_fig4_timing_{{dataset}}.log",
        executed=f"{LOG}/notebooks/zhou_fig4_timing_{{dataset}}.ipynb",
        progress=f"{LOG}/zhou_fig4_timing_{{dataset}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("zhou", threads=True, progress=True, measure="timing"),
    resources:
        **res("zhou_fig4_timing"),
    shell:
        JOB_NOTEBOOK


rule zhou_fig4:
    """Figure 4: UCB-E-LRF ablations (score only, batch, ensemble, eta, warm-up, rank) and their claims."""
    input:
        nb="notebooks/zhou_fig4_ablations.ipynb",
        csvs=expand(rules.zhou_fig4_dataset.output.csv, dataset=ABLATION_DATASETS),
        timing=expand(rules.zhou_fig4_timing.output.csv, dataset=ABLATION_DATASETS),
    output:
        nb=f"{RES}/notebooks/zhou_fig4_ablations.ipynb",
        csv=f"{RES}/zhou/fig4.csv",
        fig=f"{FIG}/zhou_fig4.png",
        claims=f"{RES}/claims/zhou_fig4.csv",
    benchmark:
        f"{BENCH}/zhou_fig4/zhou_fig4_ablations.tsv"
    log:
        nb=f"{LOG}/zhou_fig4_ablations.log",
        progress=f"{LOG}/zhou_fig4_ablations.progress.log",
    threads: THREADS
    params:
        nb=papermill("zhou", threads=True, progress=True),
    resources:
        **res("zhou_fig4"),
    shell:
        NOTEBOOK


rule zhou_datasets:
    """Table 2 (sizes, H1), Figure 5 (histograms), Table 3 / Figure 6 (low-rankness)."""
    input:
        nb="notebooks/zhou_datasets.ipynb",
    output:
        nb=f"{RES}/notebooks/zhou_datasets.ipynb",
        table2=f"{FIG}/zhou_table2.csv",
        table3=f"{FIG}/zhou_table3.csv",
        fig5=f"{FIG}/zhou_fig5.png",
        fig6=f"{FIG}/zhou_fig6.png",
        claims=f"{RES}/claims/zhou_datasets.csv",
    benchmark:
        f"{BENCH}/zhou_datasets/zhou_datasets.tsv"
    log:
        nb=f"{LOG}/zhou_datasets.log",
    params:
        nb=papermill("zhou"),
    resources:
        **res("zhou_datasets"),
    shell:
        NOTEBOOK


rule zhou_corollary1:
    """Corollary 1 checker: measured success of UCB-E vs the bound; where the bound is vacuous."""
    input:
        nb="notebooks/zhou_corollary1.ipynb",
    output:
        nb=f"{RES}/notebooks/zhou_corollary1.ipynb",
        csv=f"{RES}/zhou/corollary1.csv",
        fig=f"{FIG}/zhou_corollary1.png",
        claims=f"{RES}/claims/zhou_corollary1.csv",
    benchmark:
        f"{BENCH}/zhou_corollary1/zhou_corollary1.tsv"
    log:
        nb=f"{LOG}/zhou_corollary1.log",
    threads: THREADS
    params:
        nb=papermill("zhou", threads=True),
    resources:
        **res("zhou_corollary1"),
    shell:
        NOTEBOOK


register(rules.zhou_fig3)
register(rules.zhou_fig1)
register(rules.zhou_fig4)
register(rules.zhou_datasets)
register(rules.zhou_corollary1)
