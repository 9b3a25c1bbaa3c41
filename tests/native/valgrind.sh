#!/usr/bin/env bash
# The native CLI under valgrind (memcheck): any invalid read or write, use of uninitialised
# memory, or leak (definite, indirect or possible) fails the run.
#   tests/native/valgrind.sh [build/valgrind/attn]     (make test-valgrind builds it -O1 -g)
set -u
cd "$(dirname "$0")/../.."
attn=${1:-build/valgrind/attn}
weights=web/dist/bert-mini.int8.bin
command -v valgrind >/dev/null || { echo "valgrind: not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 5000 "$weights" >"$tmp/truncated.bin"
cp "$weights" "$tmp/flipped.bin"
printf '\x55' | dd of="$tmp/flipped.bin" bs=1 seek=5000000 conv=notrunc status=none
long_text=$(printf 'word %.0s' $(seq 600))
invalid_utf8=$(printf 'caf\xc3 \xff\xfe na\xe2\x82 \xed\xa0\x80 ok')

passed=0 failed=0
run() {  # run NAME EXPECTED_EXIT ARGS...
  local name=$1 want=$2
  shift 2
  valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
    --errors-for-leak-kinds=definite,indirect,possible "$attn" "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  if [ "$code" = "$want" ]; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name (exit $code, wanted $want)"
    head -40 "$tmp/err"
  fi
}
run "short sentence" 0 "The cat sat on the mat." --layer 2 --head 1 --token cat
run "[MASK] sentence" 0 "The cat sat on the [MASK]." --mask --json
run "[MASK] sentence, heads removed" 0 "The cat sat on the [MASK]." --mask --ablate 2.1,3.4,1.1
run "row, a whole layer removed" 0 "The cat sat on the mat." --layer 4 --ablate 3.1,3.2,3.3,3.4 --json
run "bad --ablate" 2 "x" --ablate 9.9 --json
run "600-word text (truncated to 512)" 0 "$long_text" --layer 4 --head 4 --token 511
run "--tokenize" 0 "Tokenization splits unbelievably, café 東京" --tokenize --json
run "invalid UTF-8" 0 "$invalid_utf8" --tokenize
run "truncated weights file" 1 "x" --weights "$tmp/truncated.bin"
run "corrupted weights file" 1 "x" --weights "$tmp/flipped.bin"
run "missing weights file" 1 "x" --weights "$tmp/none.bin"
echo "valgrind: $passed passed, $failed failed"
[ "$failed" = 0 ]
