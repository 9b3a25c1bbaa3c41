#!/usr/bin/env bash
# Measures attention parity and file size for each quantization scheme given, e.g.
#   tools/quant-sweep.sh "--precision int8" "--precision auto --target 3e-3" "--precision int16"
# Each argument is one set of converter options. CHECKPOINT (default ../shared/checkpoints/
# bert-mini-mlm) and FIXTURES (its golden outputs' directory, default tests/fixtures) choose
# the model.
set -euo pipefail
cd "$(dirname "$0")/.."
checkpoint=${CHECKPOINT:-../shared/checkpoints/bert-mini-mlm}
fixtures=${FIXTURES:-tests/fixtures}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scheme in "$@"; do
  # shellcheck disable=SC2086
  node weights/convert.mjs "$checkpoint" "$out/w.bin" $scheme 2>/dev/null
  result=$(node tests/parity.mjs --attention "$fixtures/attention" --mlm "$fixtures/mlm.json" --weights "$out/w.bin" | grep -E "^(attention|mlm):" || true)
  attention=$(grep -oE 'max \|Δ\| [0-9.e+-]+' <<<"$result" | head -1 | cut -d' ' -f3)
  hidden=$(grep -oE 'hidden max \|Δ\| [0-9.e+-]+' <<<"$result" | cut -d' ' -f4)
  mlm=$(grep -oE 'top-5 set equal [0-9/]+' <<<"$result" | cut -d' ' -f4)
  printf '%-40s size %9d  attention max|Δ| %s  hidden max|Δ| %s  mlm top-5 %s\n' \
    "$scheme" "$(stat -c %s "$out/w.bin")" "$attention" "$hidden" "$mlm"
done
