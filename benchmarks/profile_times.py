"""Job time of a profile's finished jobs, per rule, from Snakemake's own records (``.snakemake/metadata``).

Each record holds a job's start and end time; a job with several outputs is counted once. Outputs marked up to
date with ``--touch`` (or made before the records existed) show 0 and are listed as such. Prints, per rule,
the number of jobs and their summed and longest wall time, then the total. Job time, not elapsed time: with
2 cores two jobs run at once. Only jobs run on this checkout are recorded (a fresh clone has none).

    python benchmarks/profile_times.py paper
"""

from __future__ import annotations

import argparse
import base64
import json
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def job_times(profile: str) -> dict[str, list[float]]:
    seen, out = set(), defaultdict(list)
    for f in (ROOT / ".snakemake" / "metadata").iterdir():
        try:
            rec = json.loads(f.read_text())
            target = base64.b64decode(f.name.replace("@", "/")).decode()
        except (ValueError, UnicodeDecodeError):
            continue
        if f"/{profile}/" not in f"/{target}" or rec.get("incomplete") or not rec.get("endtime"):
            continue
        key = (rec["rule"], rec["endtime"])  # the outputs of one job share its end time
        if key in seen:
            continue
        seen.add(key)
        out[rec["rule"]].append(max(rec["endtime"] - rec["starttime"], 0.0))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile", nargs="?", default="paper")
    times = job_times(ap.parse_args().profile)
    print("| rule | jobs | job time (min) | longest job (min) | jobs without a time (touched) |\n|---|---|---|---|---|")
    for rule, t in sorted(times.items(), key=lambda kv: -sum(kv[1])):
        print(f"| {rule} | {len(t)} | {sum(t) / 60:.1f} | {max(t) / 60:.1f} | {sum(x < 1 for x in t)} |")
    total = [x for t in times.values() for x in t]
    print(f"| **total** | {len(total)} | {sum(total) / 60:.1f} | {max(total, default=0) / 60:.1f} | "
          f"{sum(x < 1 for x in total)} |")


if __name__ == "__main__":
    main()
