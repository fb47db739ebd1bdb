# The claims ledger: every paper's fragments merged into figures/<profile>/claims.{csv,md}.


rule claims:
    """The claims ledger: every fragment merged, in paper order, into figures/<profile>/claims.{csv,md}."""
    input:
        FRAGMENTS,  # registered by each rule file (register() in common.smk)
    output:
        csv=f"{FIG}/claims.csv",
        md=f"{FIG}/claims.md",
        paper_vs_ours=f"{FIG}/paper_vs_ours.csv",  # written by the same command (paperlib.paper_vs_ours)
    benchmark:
        f"{BENCH}/claims/claims.tsv"
    log:
        f"{LOG}/claims.log",
    resources:
        **res("claims"),
    params:
        run_on=config.get("run_on", ""),
    shell:
        "python -m paperlib ledger {input:q} --csv {output.csv:q} --md {output.md:q} --run-on={params.run_on:q} > {log:q} 2>&1"
