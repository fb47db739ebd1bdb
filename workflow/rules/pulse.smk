# Tolochinsky et al. 2026, PULSE: Figures 1-4, Step 1 cross-validation, theorem checkers.


rule pulse_fit:
    """PULSE Step 1 on one pool's train split: the frozen example factors V, fitted once and read by every block
    (fit 0 the authors' one fit; fit k > 0 the profile's extra fits). A temporary file: the blocks are the results."""
    input:
        nb="notebooks/pulse_fit.ipynb",
    output:
        npz=temp(f"{RES}/pulse/fits/{{pool}}.fit{{fit}}.npz"),
    benchmark:
        f"{BENCH}/pulse_fit/pulse_fit_{{pool}}_fit{{fit}}.tsv"
    log:
        nb=f"{LOG}/pulse_fit_{{pool}}_fit{{fit}}.log",
        executed=f"{LOG}/notebooks/pulse_fit_{{pool}}_fit{{fit}}.ipynb",
        progress=f"{LOG}/pulse_fit_{{pool}}_fit{{fit}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True, progress=True),
    resources:
        **res("pulse_fit"),
    shell:
        JOB_NOTEBOOK


rule pulse_block:
    """PULSE, UCB-E and Naive-Pooling: one block of runs [a, b) (``pulse.rep_block``) on one pool, each run's pick at
    every budget. Keyed streams make the blocks exactly the runs of one batch; a killed run resumes from its finished
    blocks. The executed notebook is a log."""
    input:
        nb="notebooks/pulse_block.ipynb",
        fit=f"{RES}/pulse/fits/{{pool}}.fit0.npz",
    output:
        csv=f"{RES}/pulse/blocks/{{pool}}.b{{block}}.csv.gz",
    benchmark:
        f"{BENCH}/pulse_block/pulse_block_{{pool}}_b{{block}}.tsv"
    log:
        nb=f"{LOG}/pulse_block_{{pool}}_b{{block}}.log",
        executed=f"{LOG}/notebooks/pulse_block_{{pool}}_b{{block}}.ipynb",
        progress=f"{LOG}/pulse_block_{{pool}}_b{{block}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True, progress=True),
    resources:
        **res("pulse_block"),
    shell:
        JOB_NOTEBOOK


rule pulse_fit_block:
    """The runs of the profile's ``fits`` (issue 67, item 5) with extra Step 1 fit k > 0 of one pool, one block of
    them: the same runs (methods, seeds, keyed streams) as the pool's with another V, so how a verdict moves with the
    fit is measured run for run."""
    input:
        nb="notebooks/pulse_block.ipynb",
        fit=f"{RES}/pulse/fits/{{pool}}.fit{{fit}}.npz",
    output:
        csv=f"{RES}/pulse/fit_blocks/{{pool}}.fit{{fit}}.b{{block}}.csv.gz",
    benchmark:
        f"{BENCH}/pulse_fit_block/pulse_fit_block_{{pool}}_fit{{fit}}_b{{block}}.tsv"
    log:
        nb=f"{LOG}/pulse_fit_block_{{pool}}_fit{{fit}}_b{{block}}.log",
        executed=f"{LOG}/notebooks/pulse_fit_block_{{pool}}_fit{{fit}}_b{{block}}.ipynb",
        progress=f"{LOG}/pulse_fit_block_{{pool}}_fit{{fit}}_b{{block}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True, progress=True),
    resources:
        **res("pulse_fit_block"),
    shell:
        JOB_NOTEBOOK


rule pulse_pool:
    """One pool's blocks concatenated: Accuracy@t of PULSE, UCB-E and Naive-Pooling at every budget, and its figure."""
    input:
        nb="notebooks/pulse_pool.ipynb",
        blocks=expand(rules.pulse_block.output.csv, block=PULSE_BLOCKS, allow_missing=True),
    output:
        csv=f"{RES}/pulse/pools/{{pool}}.csv",
    benchmark:
        f"{BENCH}/pulse_pool/pulse_pool_{{pool}}.tsv"
    log:
        nb=f"{LOG}/pulse_pool_{{pool}}.log",
        executed=f"{LOG}/notebooks/pulse_pool_{{pool}}.ipynb",
    params:
        nb=papermill("pulse"),
    resources:
        **res("pulse_pool"),
    shell:
        JOB_NOTEBOOK


rule pulse_summary:
    """PULSE Figures 1-4 (budget to 95%, Accuracy@t, effective budget) and the headline claims."""
    input:
        nb="notebooks/pulse_summary.ipynb",
        csvs=expand(rules.pulse_pool.output.csv, pool=PULSE_POOLS),
        # the runs with extra Step 1 fits (the profile's `fits`): does a verdict move with the fit of V?
        fit_blocks=expand(rules.pulse_fit_block.output.csv, pool=PULSE_FIT_POOLS, fit=PULSE_FITS, block=PULSE_FIT_BLOCKS),
        # runs of the authors' code on our pools (benchmarks/pulse_authors_side_by_side.py), where there are some
        authors=sorted(str(p) for p in Path(RES, "pulse", "authors").glob("*.csv")),
    output:
        nb=f"{RES}/notebooks/pulse_summary.ipynb",
        fig1=f"{FIG}/pulse_fig1.png",
        fig2=f"{FIG}/pulse_fig2.png",
        fig3=f"{FIG}/pulse_fig3.png",
        table=f"{FIG}/pulse_budget95.csv",
        claims=f"{RES}/claims/pulse_summary.csv",
    benchmark:
        f"{BENCH}/pulse_summary/pulse_summary.tsv"
    log:
        nb=f"{LOG}/pulse_summary.log",
    params:
        nb=papermill("pulse"),
    resources:
        **res("pulse_summary"),
    shell:
        NOTEBOOK


rule pulse_cv_pool:
    """PULSE Step 1 on one dataset: 5-fold CV with the 1-SE rule on the train split of its first pool."""
    input:
        nb="notebooks/pulse_cv_pool.ipynb",
    output:
        csv=f"{RES}/pulse/cv/{{pool}}.csv",
    benchmark:
        f"{BENCH}/pulse_cv_pool/pulse_cv_pool_{{pool}}.tsv"
    log:
        nb=f"{LOG}/pulse_cv_pool_{{pool}}.log",
        executed=f"{LOG}/notebooks/pulse_cv_pool_{{pool}}.ipynb",
        progress=f"{LOG}/pulse_cv_pool_{{pool}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True, progress=True),
    resources:
        **res("pulse_cv_pool"),
    shell:
        JOB_NOTEBOOK


rule pulse_lowrank:
    """PULSE Step 1: the per-dataset CV tables joined, the figure and the claims."""
    input:
        nb="notebooks/pulse_lowrank.ipynb",
        csvs=expand(rules.pulse_cv_pool.output.csv, pool=CV_POOLS),
    output:
        nb=f"{RES}/notebooks/pulse_lowrank.ipynb",
        csv=f"{FIG}/pulse_cv.csv",
        claims=f"{RES}/claims/pulse_lowrank.csv",
    benchmark:
        f"{BENCH}/pulse_lowrank/pulse_lowrank.tsv"
    log:
        nb=f"{LOG}/pulse_lowrank.log",
    params:
        nb=papermill("pulse"),
    resources:
        **res("pulse_lowrank"),
    shell:
        NOTEBOOK


rule pulse_theory:
    """PULSE checkers: Lemmas 1, 2, 5, 6 and Theorems 1, 2."""
    input:
        nb="notebooks/pulse_theory.ipynb",
        csvs=rules.pulse_summary.input.csvs,
    output:
        nb=f"{RES}/notebooks/pulse_theory.ipynb",
        claims=f"{RES}/claims/pulse_theory.csv",
    benchmark:
        f"{BENCH}/pulse_theory/pulse_theory.tsv"
    log:
        nb=f"{LOG}/pulse_theory.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True),
    resources:
        **res("pulse_theory"),
    shell:
        NOTEBOOK


rule pulse_coverage_block:
    """PULSE Theorem 1 inside the running bandit: one block of runs on one pool, the three kinds of predictions (the
    cells before the radius, which needs every run: a temporary output, the pool's summary is the result)."""
    input:
        nb="notebooks/pulse_coverage_block.ipynb",
        fit=f"{RES}/pulse/fits/{{pool}}.fit0.npz",
    output:
        cells=temp(f"{RES}/pulse/coverage/blocks/{{pool}}.b{{block}}.npz"),
    benchmark:
        f"{BENCH}/pulse_coverage_block/pulse_coverage_block_{{pool}}_b{{block}}.tsv"
    log:
        nb=f"{LOG}/pulse_coverage_block_{{pool}}_b{{block}}.log",
        executed=f"{LOG}/notebooks/pulse_coverage_block_{{pool}}_b{{block}}.ipynb",
        progress=f"{LOG}/pulse_coverage_block_{{pool}}_b{{block}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True, progress=True),
    resources:
        **res("pulse_coverage_block"),
    shell:
        JOB_NOTEBOOK


rule pulse_coverage_pool:
    """PULSE Theorem 1 inside the running bandit on one pool: its blocks' cells, Theorem 1's radius, the summary."""
    input:
        nb="notebooks/pulse_coverage_pool.ipynb",
        blocks=expand(rules.pulse_coverage_block.output.cells, block=COVERAGE_BLOCKS, allow_missing=True),
    output:
        summary=f"{RES}/pulse/coverage/{{pool}}.csv",
        ratio=f"{RES}/pulse/coverage/{{pool}}_ratio.csv",
    benchmark:
        f"{BENCH}/pulse_coverage_pool/pulse_coverage_pool_{{pool}}.tsv"
    log:
        nb=f"{LOG}/pulse_coverage_pool_{{pool}}.log",
        executed=f"{LOG}/notebooks/pulse_coverage_pool_{{pool}}.ipynb",
        progress=f"{LOG}/pulse_coverage_pool_{{pool}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True, progress=True),
    resources:
        **res("pulse_coverage_pool"),
    shell:
        JOB_NOTEBOOK


rule pulse_coverage:
    """PULSE Theorem 1 inside the running bandit: interval coverage for fitted, uninformative and adversarial predictions."""
    input:
        nb="notebooks/pulse_coverage.ipynb",
        summaries=expand(rules.pulse_coverage_pool.output.summary, pool=COVERAGE_POOLS),
        ratios=expand(rules.pulse_coverage_pool.output.ratio, pool=COVERAGE_POOLS),
    output:
        nb=f"{RES}/notebooks/pulse_coverage.ipynb",
        fig=f"{FIG}/pulse_theorem1_bandit.png",
        csv=f"{FIG}/pulse_theorem1_bandit.csv",
        claims=f"{RES}/claims/pulse_coverage.csv",
    benchmark:
        f"{BENCH}/pulse_coverage/pulse_coverage.tsv"
    log:
        nb=f"{LOG}/pulse_coverage.log",
        progress=f"{LOG}/pulse_coverage.progress.log",
    threads: THREADS
    params:
        nb=papermill("pulse", threads=True, progress=True),
    resources:
        **res("pulse_coverage"),
    shell:
        NOTEBOOK


register(rules.pulse_summary)
register(rules.pulse_lowrank)
register(rules.pulse_theory)
register(rules.pulse_coverage)
