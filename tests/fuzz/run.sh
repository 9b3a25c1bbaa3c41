#!/usr/bin/env bash
# Runs libFuzzer targets for a bounded time and reports one line per target:
#   fuzz: <target> execs=<n> crashes=<n>
#   tests/fuzz/run.sh [TARGET...]        (default: fuzz_tokenizer fuzz_weights fuzz_run)
# Environment: FUZZ_SECONDS (default 60) per target; FUZZ_BUILD (default build/fuzz), where
# the binaries are (make fuzz builds them); FUZZ_JOBS (default: the cores) targets at a time,
# each on its own core for its whole time. Run from the repository root.
# Each target starts from its committed seeds (tests/fuzz/corpus/<target>/) plus what earlier
# runs kept (build/fuzz/corpus/<target>/, not committed). A crash, leak, timeout or
# out-of-memory input is moved to tests/fuzz/regressions/<target>/, where
# `make test-fuzz-regressions` replays it from then on; commit it with the fix.
# Exit status: 0 when no target crashed, 1 otherwise, 2 on a setup error.
set -u
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build/fuzz}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_tokenizer fuzz_weights fuzz_run)

max_len() {
  case $1 in
    fuzz_tokenizer) echo 16384 ;;  # long enough for runs of marks, long words, 512+ tokens
    fuzz_weights) echo 16384 ;;    # the seeds are 4-12 KB synthetic models
    fuzz_run) echo 4096 ;;         # ids (2 bytes each) or text; long runs are slow
    *) echo 4096 ;;
  esac
}

# The number of executions from libFuzzer's final statistics, else its last "#N" status line.
executions() {
  local n
  n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$1" | tail -1)
  [ -n "$n" ] || n=$(grep -oE '^#[0-9]+' "$1" | tail -1 | tr -d '#')
  echo "${n:-0}"
}

# One target for its time; its line and status in $build/$target.result.
fuzz_one() {
  local target=$1 binary=$build/$1
  local corpus=$build/corpus/$target artifacts=$build/artifacts/$target
  local regressions=tests/fuzz/regressions/$target log=$build/$target.log
  mkdir -p "$corpus" "$artifacts" "$regressions"
  rm -f "$artifacts"/*
  "$binary" -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=60 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" "tests/fuzz/corpus/$target" >"$log" 2>&1
  local status=$? crashes=0
  for found in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
    [ -e "$found" ] || continue
    mv "$found" "$regressions/"
    echo "  saved $regressions/$(basename "$found")" >&2
    crashes=$((crashes + 1))
  done
  [ "$status" = 0 ] || [ "$crashes" -gt 0 ] || crashes=1  # died without an artifact
  echo "fuzz: $target execs=$(executions "$log") crashes=$crashes" >"$build/$target.result"
  if [ "$crashes" -gt 0 ]; then
    grep -m1 -A12 -E 'ERROR|invariant failed|Test unit written' "$log" >&2
    echo "  full log: $log" >&2
  fi
}

for target in "${targets[@]}"; do
  if [ ! -x "$build/$target" ]; then
    echo "fuzz: $target: no binary $build/$target (run make fuzz)" >&2
    exit 2
  fi
done
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for target in "${targets[@]}"; do
  rm -f "$build/$target.result"
  fuzz_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
failed=0
for target in "${targets[@]}"; do
  line=$(cat "$build/$target.result" 2>/dev/null || echo "fuzz: $target execs=0 crashes=1 (no result)")
  echo "$line"
  case $line in *crashes=0) ;; *) failed=1 ;; esac
done
exit "$failed"
