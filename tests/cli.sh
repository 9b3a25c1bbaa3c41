#!/usr/bin/env bash
# The native CLI as a course author or a script uses it: rows, tokenization, [MASK], sentence
# pairs, standard input, JSON with the shape, and errors that name the bad argument. Every
# command given --json must print exactly one JSON value on standard output, failures included
# (checked with JSON.parse, duplicate keys refused).
set -u
attn=${1:-build/attn}
cd "$(dirname "$0")/.."
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One JSON value on standard input, with no object holding a key twice (JSON.parse keeps the last).
json_ok() {
  node -e '
    const text = require("fs").readFileSync(0, "utf8");
    JSON.parse(text);
    const keys = [[]];  // a duplicate key would shadow an earlier one: find it in the raw text
    const re = /"(?:[^"\\]|\\.)*"\s*:|[{}\[\]]/g;
    for (const m of text.matchAll(re)) {
      const t = m[0];
      if (t === "{" || t === "[") keys.push([]);
      else if (t === "}" || t === "]") keys.pop();
      else if (keys.at(-1).includes(t)) { console.error("duplicate key " + t); process.exit(1); }
      else keys.at(-1).push(t);
    }' 2>&1
}
check() {  # check NAME EXPECTED_EXIT PATTERN -- COMMAND...
  local name=$1 want=$2 pattern=$3
  shift 4
  local out code json_error=""
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  code=$?
  out=$(cat "$tmp/stdout" "$tmp/stderr")
  case " $* " in
    *" --json "*|*"--json'"*) json_error=$(json_ok <"$tmp/stdout") || json_error="not one JSON value: ${json_error:-?}" ;;
  esac
  if [ "$code" = "$want" ] && grep -qE -- "$pattern" <<<"$out" && [ -z "$json_error" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s (exit %s, wanted %s) %s\n%s\n' "$name" "$code" "$want" "$json_error" "$out" | head -20
  fi
}
no_raw_control() {  # no_raw_control NAME -- COMMAND...: no C0 control byte but newline reaches the terminal
  local name=$1
  shift 2
  if "$@" 2>&1 | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]'; then
    failed=$((failed + 1))
    echo "FAIL $name: a control character reached the terminal"
  else
    passed=$((passed + 1))
  fi
}
check "row with sum and ratio" 0 'sum 1\.000000 .*ratio to uniform' -- "$attn" "The cat sat on the mat." --layer 2 --head 1 --token cat
check "token by index" 0 'token 3 "sat"' -- "$attn" "The cat sat on the mat." --token 3
check "tokenize" 0 '##' -- "$attn" "Tokenization splits unbelievably" --tokenize
check "tokenize json offsets" 0 '"offsets":\[\[0,0\],\[0,3\]' -- "$attn" "The cat" --tokenize --json
check "json row" 0 '"sum":(1|0\.99999|1\.0000)' -- "$attn" "The cat sat." --json
check "mask" 0 '\[MASK\] at token 6' -- "$attn" "The cat sat on the [MASK]." --mask
check "truncation notice" 0 'truncated: the text gives 602 tokens' -- "$attn" "$(printf 'word %.0s' $(seq 600))" --tokenize
check "unknown token" 2 'no token "dog"' -- "$attn" "The cat sat." --token dog
check "layer out of range names the model's layers" 2 '^attn: --layer 9: this model has layers 1–4$' -- "$attn" "The cat sat." --layer 9
check "head out of range names the model's heads" 2 '^attn: --head 0: this model has heads 1–4$' -- "$attn" "The cat sat." --head 0
check "index out of range names the text's tokens" 2 '^attn: --token 7: this text has tokens 0–5$' -- "$attn" "The cat sat." --token 7
check "usage" 2 'usage' -- "$attn"
check "help" 0 '--pair TEXT_B' -- "$attn" --help
check "unknown option named" 2 '^attn: unknown option "--colour"$' -- "$attn" "The cat" --colour
check "missing value named" 2 '^attn: --head needs a value$' -- "$attn" "The cat" --head
check "non-number named" 2 '^attn: --layer "two" is not a whole number$' -- "$attn" "The cat" --layer two
check "second text named" 2 'unexpected argument "dog"' -- "$attn" "The cat" dog
check "stdin read once" 2 'standard input can be read only once' -- "$attn" - --pair -

# standard input
check "text from stdin" 0 '"tokens":\["\[CLS\]","the","cat","\[SEP\]"\]' -- sh -c "printf 'The cat\n' | '$attn' - --tokenize --json"
check "pair segment from stdin" 0 '"type_ids":\[0,0,0,0,1,1,1,1,1\]' -- sh -c "printf 'It was tired.' | '$attn' 'The cat' --pair - --tokenize --json"

# a number that is also a word of the text
check "numeric token read as the word" 0 'token 3 "2"' -- "$attn" "I have 2 cats" --token 2
check "numeric token: says which" 0 'note: --token 2 is read as the word "2" \(token 3\), not as index 2' -- "$attn" "I have 2 cats" --token 2
check "a word as typed finds its token" 0 'token 6 "cafe"' -- "$attn" "The Cat sat in the café." --token Café
check "#N is an index" 0 'token 2 "have"' -- "$attn" "I have 2 cats" --token '#2'
check "number not in the text is an index" 0 'token 4 "cats"' -- "$attn" "I have 2 cats" --token 4

# options that do not apply
check "unused option reported" 0 'note: --layer does not apply to --tokenize' -- "$attn" "The cat" --tokenize --layer 2
check "unused token reported" 0 'note: --token does not apply to --mask' -- "$attn" "The [MASK] sat" --mask --token cat
check "tokenize and mask refused" 2 'choose one' -- "$attn" "The cat" --tokenize --mask

# --json carries the shape
check "json row has the shape" 0 '"shape":\{"vocab":30522,"hidden":256,"layers":4,"heads":4,' -- "$attn" "The cat sat." --json
check "json tokenize has the shape" 0 '^\{"shape":\{"vocab":30522' -- "$attn" "The cat" --tokenize --json
check "json mask has the shape" 0 '^\{"shape":.*"masks":\[\{"position":2' -- "$attn" "The [MASK] sat." --mask --json

# sentence pairs: [CLS] A [SEP] B [SEP], token type 1 for B, offsets into each segment
pair=("The cat sat on the mat." --pair "It was tired.")
check "pair tokens and types" 0 '"tokens":\["\[CLS\]","the","cat","sat","on","the","mat",".","\[SEP\]","it","was","tired",".","\[SEP\]"\].*"type_ids":\[0,0,0,0,0,0,0,0,0,1,1,1,1,1\]' -- "$attn" "${pair[@]}" --tokenize --json
check "pair offsets per segment" 0 '"offsets":\[\[0,0\],\[0,3\],\[4,7\],\[8,11\],\[12,14\],\[15,18\],\[19,22\],\[22,23\],\[0,0\],\[0,2\],\[3,6\],\[7,12\],\[12,13\],\[0,0\]\]' -- "$attn" "${pair[@]}" --tokenize --json
check "pair row shows both segments" 0 '9  it +[0-9.]+  B' -- "$attn" "${pair[@]}" --token tired
check "pair row names the segment" 0 'token 11 "tired" \(segment B\)' -- "$attn" "${pair[@]}" --token tired
check "pair tokenize labels segments" 0 '8  \[SEP\] .*  A$' -- "$attn" "${pair[@]}" --tokenize
check "empty second segment" 0 '"tokens":\["\[CLS\]","one","\[SEP\]","\[SEP\]"\].*"type_ids":\[0,0,0,1\]' -- "$attn" "One" --pair "" --tokenize --json
check "pair mask" 0 '\[MASK\] at token 11 \(segment B\)' -- "$attn" "${pair[@]/tired/[MASK]}" --mask
check "pair truncated longest-first" 0 'the pair gives 903 tokens, cut longest-first to 512: A keeps 255 pieces, B keeps 254' -- "$attn" "$(printf 'word %.0s' $(seq 600))" --pair "$(printf 'cat %.0s' $(seq 300))" --tokenize
check "truncation: at least N once counting stops" 0 'the text gives at least 8192 tokens, only the first 512' -- "$attn" "$(printf 'word %.0s' $(seq 9000))" --tokenize
check "missing weights" 1 'cannot read weights file' -- "$attn" "x" --weights "$tmp/none.bin"
head -c 1000 web/dist/bert-mini.int8.bin > "$tmp/short.bin"
check "truncated weights" 1 'truncated|shorter' -- "$attn" "x" --weights "$tmp/short.bin"
cp web/dist/bert-mini.int8.bin "$tmp/flip.bin"
printf '\x55' | dd of="$tmp/flip.bin" bs=1 seek=5000000 conv=notrunc status=none
check "corrupt weights" 1 'checksum' -- "$attn" "x" --weights "$tmp/flip.bin"

# removing heads: --ablate LAYER.HEAD,… (from 1), in the output and in --json
check "ablate in the row json" 0 '"removed_heads":\[\[2,1\],\[3,4\]\]' -- "$attn" "The cat sat." --json --ablate 2.1,3.4
check "no ablate: empty list" 0 '"removed_heads":\[\]' -- "$attn" "The cat sat." --json
check "ablate in the mask json" 0 '"removed_heads":\[\[1,1\]\],"masks"' -- "$attn" "The cat sat on the [MASK]." --mask --json --ablate 1.1
check "ablate named in the text output" 0 'removed heads \(context zeroed before W_O\): 2\.1 3\.4' -- "$attn" "The cat sat on the [MASK]." --mask --ablate 2.1,3.4
check "ablate layer out of range" 2 '^attn: --ablate 5\.1: this model has layers 1–4$' -- "$attn" "The cat" --ablate 5.1
check "ablate head out of range" 2 '^attn: --ablate 2\.0: this model has heads 1–4$' -- "$attn" "The cat" --ablate 2.0 --json
check "ablate syntax" 2 'write each head as LAYER.HEAD' -- "$attn" "The cat" --ablate 2,1
check "ablate empty item" 2 'write each head as LAYER.HEAD' -- "$attn" "The cat" --ablate 2.1,
check "ablate head twice" 2 'head 2\.1 is listed twice' -- "$attn" "The cat" --ablate 2.1,2.1
check "ablate given twice" 2 '--ablate given twice' -- "$attn" "The cat" --ablate 2.1 --ablate 3.1
check "ablate unused with tokenize" 0 'note: --ablate does not apply to --tokenize' -- "$attn" "The cat" --tokenize --ablate 1.1
# a removed head leaves its own layer's attention as it was and changes the layers after it
plain2=$("$attn" "The cat sat on the mat." --layer 2 --head 3 --json | grep -o '"row":[^]]*')
gone2=$("$attn" "The cat sat on the mat." --layer 2 --head 3 --json --ablate 2.3 | grep -o '"row":[^]]*')
plain3=$("$attn" "The cat sat on the mat." --layer 3 --head 1 --json | grep -o '"row":[^]]*')
gone3=$("$attn" "The cat sat on the mat." --layer 3 --head 1 --json --ablate 2.3 | grep -o '"row":[^]]*')
if [ -n "$plain2" ] && [ "$plain2" = "$gone2" ] && [ "$plain3" != "$gone3" ]; then passed=$((passed + 1));
else failed=$((failed + 1)); echo "FAIL ablate 2.3: layer 2 should be unchanged, layer 3 changed"; fi

# every --json failure is one JSON object
check "json error: bad argument" 2 '^\{"error":\{"exit":2,"message":"--layer 9: this model has layers 1–4"\}\}' -- "$attn" "The cat sat." --layer 9 --json
check "json error: unknown option" 2 '"error":\{"exit":2,"message":"unknown option' -- "$attn" "The cat" --colour --json
check "json error: missing weights" 1 '"error":\{"exit":1,"message":"cannot read weights file' -- "$attn" "x" --json --weights "$tmp/none.bin"
check "json info" 0 '"card":\{"name":"bert-mini-int8"' -- "$attn" --info --json
check "json info: head roles as lists" 0 '"head_next":\[[0-9.,]+\],"head_previous":\[' -- "$attn" --info --json
check "info: the card's facts in English" 0 'held-out masked-word accuracy: 14\.2% top-1 \(loss 5\.94\)' -- "$attn" --info
check "info: precision" 0 'precision: 28 matrices int8, 0 int16' -- "$attn" --info
check "info: training text" 0 'trained on 13,017,689 tokens of English text' -- "$attn" --info
check "info: what it cannot show, from the measured roles" 0 'what it cannot show: no positional head' -- "$attn" --info
check "info: head roles per head" 0 'head 4\.4  next +[0-9]+%  previous +[0-9]+%  \[CLS\] +[0-9]+%' -- "$attn" --info
# the default weights from any working directory; a lone copy names where it looked
attn_path=$(cd "$(dirname "$attn")" && pwd)/$(basename "$attn")
check "default weights from another folder" 0 'model: bert-mini-int8' -- sh -c 'cd "$1" && "$2" --info' sh "$tmp" "$attn_path"
check "default weights through PATH" 0 'model: bert-mini-int8' -- sh -c 'cd / && PATH="$1:$PATH" attn --info' sh "$(dirname "$attn_path")"
mkdir -p "$tmp/alone" && cp "$attn_path" "$tmp/alone/attn"
check "a lone copy: the places looked at" 1 'cannot find the default weights file bert-mini\.int8\.bin \(looked at web/dist/bert-mini\.int8\.bin, .*/alone/bert-mini\.int8\.bin' -- sh -c 'cd "$1" && ./alone/attn --info' sh "$tmp"
cp web/dist/bert-mini.int8.bin "$tmp/alone/"
check "a copy beside its weights" 0 'token 2 "cat" attends to' -- sh -c 'cd / && "$1" "The cat sat." --token cat' sh "$tmp/alone/attn"

# hostile weights files (tests/make-hostile-weights.mjs): control characters, cards, shapes, NaN
node tests/make-hostile-weights.mjs "$tmp"
check "control characters escaped for the terminal" 0 '\\x1b\[m .*' -- "$attn" "A cat sat on a [MASK]." --mask --weights "$tmp/vocab-control.bin"
check "BEL escaped for the terminal" 0 '\\x07 ' -- "$attn" "A cat sat on a [MASK]." --mask --weights "$tmp/vocab-control.bin"
no_raw_control "mask output has no raw ESC or BEL" -- "$attn" "A cat sat on a [MASK]." --mask --weights "$tmp/vocab-control.bin"
check "control characters as \\u escapes in json" 0 '\[342,"\\u001b\[m",.*\[16,"\\u0007",' -- "$attn" "A cat sat on a [MASK]." --mask --json --weights "$tmp/vocab-control.bin"
check "a card cannot add a shape" 0 '"card":null,"card_refused":"text follows the object"\}$' -- "$attn" --info --json --weights "$tmp/card-shadow.bin"
check "shape once in info json" 0 '^\{"shape":\{"vocab":30522,"hidden":256,"layers":4,' -- "$attn" --info --json --weights "$tmp/card-shadow.bin"
check "a card with a key twice refused" 0 '"card_refused":"a key appears twice"' -- "$attn" --info --json --weights "$tmp/card-duplicate.bin"
check "a card with a raw control character refused" 0 'model card: \(not shown: a value is not a JSON string, number, true, false or list of numbers\)' -- "$attn" --info --weights "$tmp/card-control.bin"
check "a card list holding a string refused" 0 '"card_refused":"a value is not a JSON string, number, true, false or list of numbers"' -- "$attn" --info --json --weights "$tmp/card-list-text.bin"
check "a card written before: its sentences" 0 'limits: No masked-word head: attention only' -- "$attn" --info --weights "$tmp/card-legacy.bin"
check "positional heads named" 0 'heads on the next word: 3\.2' -- "$attn" --info --weights "$tmp/card-positional.bin"
check "positional heads named (previous)" 0 'heads on the previous word: 1\.4' -- "$attn" --info --weights "$tmp/card-positional.bin"
if "$attn" --info --weights "$tmp/card-positional.bin" | grep -q 'no positional head'; then
  failed=$((failed + 1)); echo "FAIL positional heads: the card must not say it has none"
else passed=$((passed + 1)); fi
no_raw_control "card text has no raw control character" -- "$attn" --info --weights "$tmp/card-control.bin"
check "2 positions refused with the reason" 1 'cannot run .*3 to 512 positions: fewer than 3 cannot hold \[CLS\], a word and \[SEP\]' -- "$attn" "x" --weights "$tmp/positions-2.bin"
check "NaN attention is an error" 1 'not a number \(NaN or infinity\)' -- "$attn" "The cat sat." --weights "$tmp/query-scale.bin"
check "NaN: json error, no nan" 1 '^\{"error":\{"exit":1,"message":"the weights make a value that is not a number' -- "$attn" "The cat sat." --json --weights "$tmp/query-scale.bin"
check "NaN in mask json" 1 '^\{"error"' -- "$attn" "The [MASK] sat." --mask --json --weights "$tmp/query-scale.bin"
echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
