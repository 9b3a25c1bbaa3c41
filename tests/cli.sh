#!/usr/bin/env bash
# The native CLI as a course author uses it: rows, tokenization, [MASK], JSON and clear errors.
set -u
attn=${1:-build/attn}
passed=0 failed=0
check() {  # check NAME EXPECTED_EXIT PATTERN -- COMMAND...
  local name=$1 want=$2 pattern=$3
  shift 4
  local out code
  out=$("$@" 2>&1)
  code=$?
  if [ "$code" = "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s (exit %s, wanted %s)\n%s\n' "$name" "$code" "$want" "$out" | head -20
  fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check "row with sum and ratio" 0 'sum 1\.000000 .*ratio to uniform' -- "$attn" "The cat sat on the mat." --layer 2 --head 1 --token cat
check "token by index" 0 'token 3 "sat"' -- "$attn" "The cat sat on the mat." --token 3
check "tokenize" 0 '##' -- "$attn" "Tokenization splits unbelievably" --tokenize
check "tokenize json offsets" 0 '"offsets":\[\[0,0\],\[0,3\]' -- "$attn" "The cat" --tokenize --json
check "json row" 0 '"sum":(1|0\.99999|1\.0000)' -- "$attn" "The cat sat." --json
check "mask" 0 '\[MASK\] at token 6' -- "$attn" "The cat sat on the [MASK]." --mask
check "truncation notice" 0 'truncated: the text gives 602 tokens' -- "$attn" "$(printf 'word %.0s' $(seq 600))" --tokenize
check "unknown token" 1 'no token "dog"' -- "$attn" "The cat sat." --token dog
check "layer out of range" 1 'count from 1' -- "$attn" "The cat sat." --layer 9
check "usage" 2 'usage' -- "$attn"
check "missing weights" 1 'cannot read weights file' -- "$attn" "x" --weights "$tmp/none.bin"
head -c 1000 weights/bert-mini.int8.bin > "$tmp/short.bin"
check "truncated weights" 1 'truncated|shorter' -- "$attn" "x" --weights "$tmp/short.bin"
cp weights/bert-mini.int8.bin "$tmp/flip.bin"
printf '\x55' | dd of="$tmp/flip.bin" bs=1 seek=5000000 conv=notrunc status=none
check "corrupt weights" 1 'checksum' -- "$attn" "x" --weights "$tmp/flip.bin"
echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
