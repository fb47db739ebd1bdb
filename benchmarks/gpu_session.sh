#!/usr/bin/env bash
# The GPU parts of the paper-scale issue in calls of under 10 minutes each, for a session lent a CUDA machine that
# has torch but not this project's other dependencies (run from the checkout; data in $PAPERLIB_DATA or ./.gpudata).
#   bash benchmarks/gpu_session.sh tests    # CUDA tests, then the fast suite with CUDA as the default device
#   bash benchmarks/gpu_session.sh bench    # the benchmarks' CUDA rows (UCB-E vs loop, PULSE family at 500 runs, LRF,
#                                           # UCB-E on the authors' Bench-1 pool with both samplers)
# Output goes to $OUT (or ./gpu-out). OMP_NUM_THREADS=2 keeps pytest-xdist workers from oversubscribing the CPU
# (the first CUDA run, 8 workers x 16 threads each, finished 24 of 34 CUDA tests in 200 s).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
export PAPERLIB_DATA=${PAPERLIB_DATA:-$PWD/.gpudata}
out=${OUT:-gpu-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
case "${1:-}" in
  tests)
    timeout 330 python3 -m pytest -v -m cuda tests/test_cuda.py -p no:cacheprovider -n 8 --durations=20 2>&1 \
      | tee "$out/cuda_tests.log" | grep -E "PASSED|FAILED|ERROR|passed|failed" | tail -45
    PAPERLIB_DEVICE=cuda timeout 200 python3 -m pytest -q -m "not slow" tests -p no:cacheprovider -n 8 \
      --continue-on-collection-errors 2>&1 | tee "$out/fast_suite_cuda.log" | tail -25 ;;
  bench)
    timeout 90 python3 benchmarks/bench_ucbe.py --reps 500 --loop-reps 100 --device cuda 2>&1 | tee "$out/bench_ucbe.txt"
    timeout 300 python3 benchmarks/bench_pulse.py --device cuda --reps 500 2>&1 | tee "$out/bench_pulse.txt"
    timeout 180 python3 benchmarks/bench_lrf.py --device cuda --reps 50 --musr-reps 50 --refit-growth 0 2>&1 \
      | tee "$out/bench_lrf.txt"
    # the authors' own Bench-1 pool (needs $PAPERLIB_DATA/wu2026_factors, 13 MB: carry it in .gpudata), both samplers
    timeout 300 python3 benchmarks/bench_pulse_pool.py --device cuda --reps 500 \
      --methods "ucbe-batch,ucbe-batch:sampler=shuffled" 2>&1 | tee "$out/bench_pulse_pool.txt" ;;
  *) echo "usage: $0 tests|bench" >&2; exit 2 ;;
esac
