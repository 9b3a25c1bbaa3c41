#!/usr/bin/env bash
# The precision search's held-out factor, measured: converts CHECKPOINT with each set of
# converter options and prints the engine's attention max |Δ| from the float64 reference on the
# converter's calibration text (what the search measured) beside the same on held-out text the
# converter never sees, and their ratio (weights/precision-search.mjs HELD_OUT_FACTOR must cover it).
#   tools/precision-margin.sh CHECKPOINT HELD_OUT "OPTIONS" ...
# HELD_OUT: a parity fixture prefix (tests/fixtures/attention: its .json sentences and golden
# .f32 attention) or "sentences" (tests/parity.mjs --checkpoint's sentences, the reference run
# on the checkpoint itself: for checkpoints without fixtures).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: tools/precision-margin.sh CHECKPOINT HELD_OUT \"OPTIONS\" ..." >&2; exit 2; }
checkpoint=$1 held=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scheme in "$@"; do
  # shellcheck disable=SC2086
  log=$(node weights/convert.mjs "$checkpoint" "$out/w.bin" $scheme 2>&1)
  calibration=$(grep -oE 'the engine measured [0-9.e+-]+' <<<"$log" | cut -d' ' -f4)
  if [ "$held" = sentences ]; then
    result=$(node tests/parity.mjs --checkpoint "$checkpoint" --weights "$out/w.bin" | grep -E "^checkpoint " || true)
  else
    result=$(node tests/parity.mjs --attention "$held" --weights "$out/w.bin" | grep -E "^attention:" || true)
  fi
  heldout=$(grep -oE 'attention max \|Δ\| [0-9.e+-]+|^attention: [0-9]+ sentences, max \|Δ\| [0-9.e+-]+' <<<"$result" | head -1 | grep -oE '[0-9.]+e[+-][0-9]+$')
  int16=$(grep -cE ' int16 +\[' <<<"$log" || true)
  printf '%-32s size %9d  int16 matrices %3s  calibration %s  held-out %s  ratio %s\n' "$scheme" "$(stat -c %s "$out/w.bin")" "$int16" "$calibration" "$heldout" \
    "$(node -e "console.log((+process.argv[1] / +process.argv[2]).toFixed(2))" "$heldout" "$calibration")"
done
