"""Every committed ledger is what today's claim builders make of the committed tables (issue 57, item 7)."""

from pathlib import Path

import pytest

from paperlib.ledger import read
from paperlib.pipeline.rebuild import FROM_TABLES, NOT_FROM_TABLES, rebuild

PROFILES = [p.name for p in sorted(Path("results").glob("*")) if (p / "claims").is_dir()]
CASES = [(p, f) for p in PROFILES for f in FROM_TABLES if (Path("results") / p / "claims" / f"{f}.csv").is_file()]


@pytest.mark.slow
@pytest.mark.parametrize("profile,fragment", CASES, ids=[f"{p}-{f}" for p, f in CASES])
def test_a_committed_fragment_is_what_todays_builders_make_of_the_committed_tables(profile, fragment):
    try:
        rows = rebuild(profile, fragment)
    except FileNotFoundError as e:
        pytest.skip(str(e))
    committed = {c.claim: c for c in read(Path("results") / profile / "claims" / f"{fragment}.csv")}
    assert [c.claim for c in rows] == list(committed), "the builders make other rows than the fragment holds"
    stale = [c.claim for c in rows if (c.verdict, c.measured, c.evidence) != (committed[c.claim].verdict,
                                                                          committed[c.claim].measured,
                                                                          committed[c.claim].evidence)]
    assert not stale, f"rerun the rule of {fragment} ({profile}): {stale}"


@pytest.mark.parametrize("profile", PROFILES)
def test_a_committed_ledger_is_the_merge_of_its_committed_fragments(profile):
    """What the claims rule writes from the committed fragments is the committed ledger (no row older or newer)."""
    from paperlib.ledger import final

    ledger = {c.claim: c for c in read(Path("figures") / profile / "claims.csv")}
    fragments = {c.claim: c for f in sorted((Path("results") / profile / "claims").glob("*.csv")) for c in final(read(f))}
    assert set(ledger) == set(fragments)
    stale = [k for k, c in fragments.items()
             if (c.verdict, c.measured) != (ledger[k].verdict, ledger[k].measured)
             or not ledger[k].evidence.startswith(c.evidence)]
    assert not stale, f"rerun the claims rule of {profile}: {stale}"


def test_every_fragment_is_either_rebuilt_from_tables_or_says_why_not():
    names = {p.stem for p in Path("results").glob("*/claims/*.csv")}
    assert names <= set(FROM_TABLES) | set(NOT_FROM_TABLES), names - set(FROM_TABLES) - set(NOT_FROM_TABLES)
