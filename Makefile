# The engine's builds and the project's checks. `make help` lists the targets.
CC      ?= cc
CFLAGS  ?= -O2
WARN    := -std=c11 -Wall -Wextra -Werror
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -g -O1
ENGINE  := c/attn.c c/forward.c c/kernels.c c/analysis.c c/tokenizer.c c/unicode_tables.c c/weights.c
HEADERS := $(wildcard c/*.h)
WEIGHTS := weights/bert-mini.int8.bin
CHECKPOINT ?= ../shared/checkpoints/bert-mini-mlm
export NODE_PATH := /usr/share/nodejs

.PHONY: deps all native wasm web test test-native test-node test-browser parity weights bench fuzz clean help

all: native wasm

help:
	@echo "make native        build/attn (CLI) and the native tests"
	@echo "make wasm          web/dist/attn.wasm (emcc -O3 -msimd128, wasm-opt -O3)"
	@echo "make test          every test: native (ASan+UBSan), parity, node --test, browser"
	@echo "make weights       re-convert $(CHECKPOINT) into $(WEIGHTS)"
	@echo "make bench         engine vs onnxruntime-web"
	@echo "make fuzz          libFuzzer targets"

native: build/attn build/test_tokenizer build/test_weights

build/attn: $(ENGINE) c/cli.c $(HEADERS)
	@mkdir -p build
	$(CC) $(WARN) $(CFLAGS) -o $@ $(ENGINE) c/cli.c -lm

build/test_%: tests/native/test_%.c $(ENGINE) $(HEADERS)
	@mkdir -p build
	$(CC) $(WARN) $(CFLAGS) -Ic -o $@ $< $(ENGINE) -lm

build/san/test_%: tests/native/test_%.c $(ENGINE) $(HEADERS)
	@mkdir -p build/san
	clang $(WARN) $(SAN) -Ic -o $@ $< $(ENGINE) -lm

build/san/attn: $(ENGINE) c/cli.c $(HEADERS)
	@mkdir -p build/san
	clang $(WARN) $(SAN) -o $@ $(ENGINE) c/cli.c -lm

wasm: web/dist/attn.wasm

web/dist/attn.wasm: $(ENGINE) $(HEADERS) build.sh
	./build.sh wasm

web: wasm
	./build.sh web

weights:
	node weights/convert.mjs $(CHECKPOINT) $(WEIGHTS)

test: deps
	$(MAKE) test-native test-node test-browser

deps:
	@tools/install-deps.sh

# Native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang).
test-native: build/san/test_tokenizer build/san/test_weights build/san/attn build/attn
	build/san/test_tokenizer $(WEIGHTS) tests/fixtures/tokenize.jsonl tests/fixtures/vocab_roundtrip.json
	build/san/test_weights $(WEIGHTS) $(wildcard $(CHECKPOINT))
	build/san/attn "The cat sat on the mat." --layer 2 --head 1 --token cat > /dev/null
	build/san/attn "The cat sat on the [MASK]." --mask --json > /dev/null
	tests/cli.sh build/attn

test-node: wasm
	node tests/parity.mjs
	node --test tests/*.test.mjs

test-browser: web
	node tests/browser/run.mjs

clean:
	rm -rf build
