#!/usr/bin/env bash
# make test-slurm: the smoke profile's whole DAG through profiles/slurm on a real one-node SLURM cluster (issue 60).
#
# As root on a Debian machine: starts a one-node cluster from tests/slurm/ (cluster.sh, slurm.conf.in), runs the smoke
# DAG (no data: the partial smoke report) once locally and once through Snakemake's SLURM executor with the project's
# profiles/slurm (every rule job an sbatch job), compares the two (every table and the ledger equal, timing columns
# aside), cancels a job of a second SLURM run with scancel and shows that rerunning the same command resubmits only
# what is missing, then stops the cluster. Ends with one line:
#   slurm: N jobs submitted with sbatch, N completed; outputs identical to the local smoke run
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${SLURM_TEST_WORK:-/tmp/paperlib-slurm-run}"
snakemake="${SNAKEMAKE:-$root/.venv/bin/snakemake}"
python="${PYTHON:-$root/.venv/bin/python}"
export PATH="$(dirname "$snakemake"):$PATH"
unset PAPERLIB_DATA  # the smoke DAG without data: the same on every machine
export SLURM_TEST_DIR="$work/cluster" SLURM_CONF="$work/cluster/slurm.conf"

rm -rf "$work" && mkdir -p "$work"
for copy in local slurm; do
  mkdir -p "$work/$copy"
  (cd "$root" && cp -r Snakefile workflow paperlib notebooks profiles README.md "$work/$copy/")
done
"$root/tests/slurm/cluster.sh" start
trap '"$root/tests/slurm/cluster.sh" stop' EXIT

# the cluster's one partition for every rule (profiles/slurm sends the heavy rules to "gpu"), no account (no
# accounting database here), job states from squeue (finished jobs stay listed for MinJobAge), short polling
gpu_rules="zhou_fig3_block zhou_fig4_dataset pulse_pool pulse_coverage_pool robin_cell"
slurm_args=(--profile profiles/slurm --configfile paperlib/config/smoke.yaml --jobs 4 --latency-wait 5
            --default-resources slurm_partition=cpu mem_mb=2000 runtime=30
            --set-resources $(for r in $gpu_rules; do printf '%s:slurm_partition=cpu ' "$r"; done)
            --slurm-status-command squeue --slurm-init-seconds-before-status-checks 1
            --seconds-between-status-checks 2)

echo "== local smoke run"
(cd "$work/local" && "$snakemake" --profile profiles/smoke --cores 2 > "$work/local.log" 2>&1) \
  || { tail -30 "$work/local.log"; exit 1; }
echo "== the same DAG through profiles/slurm"
(cd "$work/slurm" && "$snakemake" "${slurm_args[@]}" > "$work/slurm.log" 2>&1) \
  || { tail -40 "$work/slurm.log"; exit 1; }
submitted="$(grep -c 'has been submitted with SLURM jobid' "$work/slurm.log" || true)"
completed="$(squeue -h -t all -o '%T' | grep -c '^COMPLETED$' || true)"

echo "== compare"
"$python" "$root/tests/slurm/compare.py" "$work/local" "$work/slurm"

echo "== scancel a running job, then rerun the same command"
# Figure 4 is removed, so its job and what depends on it (the ledger) run again; the first of them to run is cancelled
# with scancel; the rerun must submit only what is still missing
rm -f "$work/slurm/figures/smoke-partial/zhou_fig4.png"
(cd "$work/slurm" && "$snakemake" "${slurm_args[@]}" > "$work/cancel.log" 2>&1) &
runner=$!
job=""
for _ in $(seq 600); do
  job="$(squeue -h -t running -o '%i' | head -1)"
  [ -n "$job" ] && break
  sleep 0.2
done
[ -n "$job" ] || { echo "no job ever ran"; exit 1; }
scancel "$job"
if wait "$runner"; then echo "the run whose job was cancelled did not fail"; exit 1; fi
(cd "$work/slurm" && "$snakemake" "${slurm_args[@]}" > "$work/resume.log" 2>&1) \
  || { tail -40 "$work/resume.log"; exit 1; }
resubmitted="$(grep -c 'has been submitted with SLURM jobid' "$work/resume.log" || true)"
planned="$(grep -c 'has been submitted with SLURM jobid' "$work/cancel.log" || true)"
echo "cancelled job $job; the rerun submitted $resubmitted job(s) (of the $submitted of a whole run)"
"$python" "$root/tests/slurm/compare.py" "$work/local" "$work/slurm"
if [ "$resubmitted" -lt 1 ] || [ "$resubmitted" -ge "$submitted" ]; then
  echo "the rerun should resubmit what the cancelled run left missing, and only that"; exit 1
fi
total="$(squeue -h -t all -o '%i' | wc -l)"
total_done="$(squeue -h -t all -o '%T' | grep -c '^COMPLETED$' || true)"
echo "slurm: $submitted jobs submitted with sbatch, $completed completed; outputs identical to the local smoke run"
echo "(with the cancelled run and its rerun: $total jobs, $total_done completed, 1 cancelled by scancel)"
