# The reproduction as a book (paperlib/pipeline/book.py): the same builder as `make report`, on this run's outputs.


rule report:
    """site/<profile>/index.html (and the PDF where Chromium is installed) from the run's ledger, figures and executed notebooks."""
    input:
        claims=rules.claims.output.csv,
    output:
        index=f"site/{OUT}/index.html",
    benchmark:
        f"{BENCH}/report/report.tsv"
    params:
        executed=f"{RES}/notebooks",
        figures=FIG,
        out=f"site/{OUT}",
        work=f"build/book/{OUT}",
    log:
        f"{LOG}/report.log",
    resources:
        **res("report"),
    shell:
        "python -m paperlib.pipeline.book --profile {OUT} --executed {params.executed:q} --figures {params.figures:q} "
        "--out {params.out:q} --work {params.work:q} > {log:q} 2>&1"
