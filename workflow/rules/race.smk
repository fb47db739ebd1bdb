# The race (beyond the papers): every method on every real matrix, accuracy and confidence budgets.


rule race:
    """Accuracy at budgets of 1% to 30% with exact intervals, CB_T per method and matrix, the SySRs claims."""
    input:
        nb="notebooks/race.ipynb",
    output:
        nb=f"{RES}/notebooks/race.ipynb",
        acc=f"{FIG}/race_accuracy.csv",
        cb=f"{FIG}/race_cb.csv",
        fig=f"{FIG}/race.png",
        claims=f"{RES}/claims/race.csv",
    log:
        nb=f"{LOG}/race.log",
        progress=f"{LOG}/race.progress.log",
    threads: THREADS
    params:
        nb=notebook_params("race"),
    resources:
        **res("race"),
    shell:
        "{PAPERMILL} {input.nb:q} {output.nb:q} -y {params.nb:q} -p out_acc {output.acc:q} -p out_cb {output.cb:q} "
        "-p out_fig {output.fig:q} -p out_claims {output.claims:q} -p threads {threads} "
        "-p progress_log {log.progress:q} > {log.nb:q} 2>&1"
