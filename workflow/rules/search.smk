# Certified best-model search (beyond the papers): calls at the first certificate on every real matrix.


rule search_certified:
    """Each run stopped at its first certificate: fraction of the matrix spent, and wrong certified picks."""
    input:
        nb="notebooks/search_certified.ipynb",
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
