# The executable paper as a static site (paperlib/pipeline/report.py): every executed notebook, the ledger, the figures.


rule report:
    """site/<profile>/index.html from the run's executed notebooks, claims ledger, figures and the README."""
    input:
        claims=rules.claims.output.csv,
        readme="README.md",
    output:
        index=f"site/{OUT}/index.html",
    params:
        executed=f"{RES}/notebooks",
        figures=FIG,
        out=f"site/{OUT}",
    log:
        f"{LOG}/report.log",
    resources:
        **res("report"),
    shell:
        "python -m paperlib.pipeline.report --profile {OUT} --executed {params.executed:q} --figures {params.figures:q} "
        "--readme {input.readme:q} --out {params.out:q} > {log:q} 2>&1"
