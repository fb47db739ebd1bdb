# The claims ledger: every paper's fragments merged into figures/<profile>/claims.{csv,md}.


rule claims:
    """The claims ledger: every fragment merged, in paper order, into figures/<profile>/claims.{csv,md}."""
    input:
        rules.zhou_fig3.output.claims,
        rules.zhou_fig1.output.claims,
        rules.zhou_fig4.output.claims,
        rules.zhou_datasets.output.claims,
        rules.zhou_corollary1.output.claims,
        rules.robin_data.output.claims,
        rules.robin_summary.output.claims,
        rules.robin_theory.output.claims,
        rules.pulse_summary.output.claims,
        rules.pulse_lowrank.output.claims,
        rules.pulse_theory.output.claims,
        rules.pulse_coverage.output.claims,
        rules.search_certified.output.claims,
        rules.race.output.claims,
    output:
        csv=f"{FIG}/claims.csv",
        md=f"{FIG}/claims.md",
    log:
        f"{LOG}/claims.log",
    resources:
        **res("claims"),
    params:
        run_on=config.get("run_on", ""),
    shell:
        "python -m paperlib ledger {input:q} --csv {output.csv:q} --md {output.md:q} --run-on={params.run_on:q} > {log:q} 2>&1"
