#!/usr/bin/env bash
# The README's test command on a machine made slow: every core busy with a CPU-bound neighbour
# (stress-ng from Debian, or busy Python loops without it), and the tests at a lower priority than
# the neighbour. The suite must pass like this: no test may depend on how fast the machine is.
#
#   scripts/test_under_load.sh               # twice in a row, tests at nice 2, one busy loop per core
#   RUNS=1 NICE=10 scripts/test_under_load.sh -k serve    # further arguments go to pytest
#
# Prints each run's outcome and time (the whole output is in out/test_under_load/run-N.log);
# exits non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-2}"
niceness="${NICE:-2}"
cores="$(nproc)"
python="${PYTHON:-.venv/bin/python}"
logs="${LOG_DIR:-out/test_under_load}"
mkdir -p "$logs"

neighbours=()
if command -v stress-ng >/dev/null; then
  stress-ng --cpu "$cores" --cpu-method matrixprod --quiet &
  neighbours+=("$!")
  load="stress-ng --cpu $cores"
else
  for _ in $(seq "$cores"); do
    "$python" -c 'while True: pass' &
    neighbours+=("$!")
  done
  load="$cores busy Python loops"
fi
trap 'kill "${neighbours[@]}" 2>/dev/null; wait 2>/dev/null' EXIT

failed=0
for run in $(seq "$runs"); do
  started=$(date +%s)
  nice -n "$niceness" "$python" -m pytest -q -p no:cacheprovider "$@" > "$logs/run-$run.log" 2>&1
  status=$?
  grep -E '^(FAILED|ERROR) ' "$logs/run-$run.log"
  tail -n 1 "$logs/run-$run.log"
  echo "test_under_load: run $run of $runs, under $load, tests at nice $niceness: exit $status in $(( $(date +%s) - started )) s"
  [ "$status" -eq 0 ] || failed=1
done
exit "$failed"
