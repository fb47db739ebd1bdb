# Saha et al. 2026, LLM-as-Judge on a Budget (ROBIN / ROBIN-HOOD): Figures 1-9, Table 2, theorem checkers.


rule robin_data:
    """ROBIN Figures 1-2: per-item variance and mean of every judge x attribute cell."""
    input:
        nb="notebooks/robin_data.ipynb",
    output:
        nb=f"{RES}/notebooks/robin_data.ipynb",
        fig1=f"{FIG}/robin_fig1.png",
        fig2=f"{FIG}/robin_fig2.png",
        csv=f"{FIG}/robin_data.csv",
        claims=f"{RES}/claims/robin_data.csv",
    benchmark:
        f"{BENCH}/robin_data/robin_data.tsv"
    log:
        nb=f"{LOG}/robin_data.log",
    params:
        nb=papermill("robin"),
    resources:
        **res("robin_data"),
    shell:
        NOTEBOOK


rule robin_cell_block:
    """One block of runs [a, b) of every method on one cell (the profile's ``robin.rep_block``). Keyed streams make
    the blocks exactly the runs of one batch."""
    input:
        nb="notebooks/robin_cell.ipynb",
    output:
        csv=f"{RES}/robin/cells/blocks/{{cell}}.b{{block}}.csv.gz",
    benchmark:
        f"{BENCH}/robin_cell_block/robin_cell_block_{{cell}}_b{{block}}.tsv"
    log:
        nb=f"{LOG}/robin_cell_block_{{cell}}_b{{block}}.log",
        executed=f"{LOG}/notebooks/robin_cell_block_{{cell}}_b{{block}}.ipynb",
        progress=f"{LOG}/robin_cell_block_{{cell}}_b{{block}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("robin", threads=True, progress=True),
    resources:
        **res("robin_cell_block"),
    shell:
        JOB_NOTEBOOK


rule robin_cell:
    """Uniform, ROBIN and ROBIN-HOOD on one judge x attribute cell, every budget (from its blocks of runs where the
    profile sets ``robin.rep_block``)."""
    input:
        nb="notebooks/robin_cell.ipynb",
        **({"blocks": expand(f"{RES}/robin/cells/blocks/{{cell}}.b{{block}}.csv.gz", block=ROBIN_BLOCKS,
                             allow_missing=True)} if ROBIN_BLOCKS else {}),
    output:
        csv=f"{RES}/robin/cells/{{cell}}.csv.gz",
    benchmark:
        f"{BENCH}/robin_cell/robin_cell_{{cell}}.tsv"
    log:
        nb=f"{LOG}/robin_cell_{{cell}}.log",
        executed=f"{LOG}/notebooks/robin_cell_{{cell}}.ipynb",
        progress=f"{LOG}/robin_cell_{{cell}}.progress.log",
    threads: THREADS
    params:
        nb=papermill("robin", threads=True, progress=True),
    resources:
        **res("robin_cell"),
    shell:
        JOB_NOTEBOOK


rule robin_summary:
    """ROBIN Figures 3-5, 6-7 and 9, 8 and Table 2; the experimental claims."""
    input:
        nb="notebooks/robin_summary.ipynb",
        csvs=expand(rules.robin_cell.output.csv, cell=ROBIN_CELLS),
    output:
        nb=f"{RES}/notebooks/robin_summary.ipynb",
        fig3=f"{FIG}/robin_fig3_5.png",
        fig8=f"{FIG}/robin_fig8.png",
        fig6=f"{FIG}/robin_fig6_7_9.png",
        table2=f"{FIG}/robin_table2.csv",
        table2_md=f"{FIG}/robin_table2.md",
        claims=f"{RES}/claims/robin_summary.csv",
    benchmark:
        f"{BENCH}/robin_summary/robin_summary.tsv"
    log:
        nb=f"{LOG}/robin_summary.log",
    params:
        nb=papermill("robin"),
    resources:
        **res("robin_summary"),
    shell:
        NOTEBOOK


rule robin_theory:
    """ROBIN theorem checkers: Lemma 2, Theorem 3, Theorem 8, Lemmas 6-7, Corollary 9, Theorem 5."""
    input:
        nb="notebooks/robin_theory.ipynb",
    output:
        nb=f"{RES}/notebooks/robin_theory.ipynb",
        csv=f"{FIG}/robin_lemma2.csv",
        fig=f"{FIG}/robin_theory.png",
        claims=f"{RES}/claims/robin_theory.csv",
    benchmark:
        f"{BENCH}/robin_theory/robin_theory.tsv"
    log:
        nb=f"{LOG}/robin_theory.log",
    threads: THREADS
    params:
        nb=papermill("robin", threads=True),
    resources:
        **res("robin_theory"),
    shell:
        NOTEBOOK


register(rules.robin_data)
register(rules.robin_summary)
register(rules.robin_theory)
