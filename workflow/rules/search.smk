# Certified best-model search (beyond the papers): calls at the first certificate on every real matrix.


rule search_block:
    """One block of runs [a, b) (the profile's ``search.rep_block``) of certified search (``which`` = certified) or
    of the runs with a prior (prior): every matrix, each run to its first certificate. Keyed streams make the blocks
    exactly the runs of one batch."""
    input:
        nb="notebooks/search_block.ipynb",
    output:
        csv=f"{RES}/search/blocks/{{which}}.b{{block}}.csv.gz",
    benchmark:
        f"{BENCH}/search_block/search_block_{{which}}_b{{block}}.tsv"
    log:
        nb=f"{LOG}/search_block_{{which}}_b{{block}}.log",
        executed=f"{LOG}/notebooks/search_block_{{which}}_b{{block}}.ipynb",
        progress=f"{LOG}/search_block_{{which}}_b{{block}}.progress.log",
    wildcard_constraints:
        which="certified|prior",
    threads: THREADS
    params:
        nb=papermill("search", threads=True, progress=True),
    resources:
        **res("search_block"),
    shell:
        JOB_NOTEBOOK


rule search_certified:
    """Each run stopped at its first certificate: fraction of the matrix spent, and wrong certified picks (from its
    blocks of runs where the profile sets ``search.rep_block``)."""
    input:
        nb="notebooks/search_certified.ipynb",
        **({"blocks": expand(rules.search_block.output.csv, which="certified", block=SEARCH_BLOCKS)}
           if SEARCH_BLOCKS else {}),
    output:
        nb=f"{RES}/notebooks/search_certified.ipynb",
        csv=f"{RES}/search/certified_runs.csv",
        table=f"{FIG}/search_certified.csv",
        fig=f"{FIG}/search_certified.png",
        claims=f"{RES}/claims/search_certified.csv",
    benchmark:
        f"{BENCH}/search_certified/search_certified.tsv"
    log:
        nb=f"{LOG}/search_certified.log",
        progress=f"{LOG}/search_certified.progress.log",
    threads: THREADS
    params:
        nb=papermill("search", threads=True, progress=True),
    resources:
        **res("search_certified"),
    shell:
        NOTEBOOK


register(rules.search_certified)


rule search_prior:
    """Certified search with a prior (issue 59): lucb without one, lucb-prior with the other models' rows, shuffled
    and reversed; calls at the first certificate as a ratio to lucb's, and wrong certified picks."""
    input:
        nb="notebooks/search_prior.ipynb",
        **({"blocks": expand(rules.search_block.output.csv, which="prior", block=SEARCH_PRIOR_BLOCKS)}
           if SEARCH_BLOCKS else {}),
    output:
        nb=f"{RES}/notebooks/search_prior.ipynb",
        csv=f"{RES}/search/prior_runs.csv.gz",
        table=f"{FIG}/search_prior.csv",
        fig=f"{FIG}/search_prior.png",
        claims=f"{RES}/claims/search_prior.csv",
    benchmark:
        f"{BENCH}/search_prior/search_prior.tsv"
    log:
        nb=f"{LOG}/search_prior.log",
        progress=f"{LOG}/search_prior.progress.log",
    threads: THREADS
    params:
        nb=papermill("search", threads=True, progress=True),
    resources:
        **res("search_prior"),
    shell:
        NOTEBOOK


register(rules.search_prior)
