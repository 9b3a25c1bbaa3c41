# The engine's builds and the project's checks. `make help` lists the targets.
# `make test` is the fast loop (a few minutes from a built tree); `make test-all` is every check,
# the one .ci/run calls.
SHELL   := /bin/bash
.SHELLFLAGS := -o pipefail -ec
CC      ?= cc
CFLAGS  ?= -O2
# -ffp-contract=off: no fused multiply-adds, so that every build rounds as wasm SIMD128 does.
WARN    := -std=c11 -Wall -Wextra -Werror -ffp-contract=off
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -g -O1
# The engine's C sources: the one list (build.sh reads it through `make print-engine-sources`).
ENGINE  := c/attn.c c/forward.c c/kernels.c c/linear.c c/analysis.c c/tokenizer.c c/unicode_tables.c c/weights.c
HEADERS := $(sort $(wildcard c/*.h) c/spec.h)
# The default weights, committed once: where the page loads them from.
WEIGHTS := web/dist/bert-mini.int8.bin
CHECKPOINT ?= ../shared/checkpoints/bert-mini-int8
FLOAT_CHECKPOINT ?= ../shared/checkpoints/bert-mini-mlm
export NODE_PATH := /usr/share/nodejs
# Jobs at a time where checks run side by side: the cores, two at least.
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n > 2 ? n : 2 )))
# Every test command runs under a limit of its own (tests/lib/limit.sh): `$(LIMIT) SECONDS command`.
LIMIT   := tests/lib/limit.sh

.PHONY: deps all native wasm web lint format format-check test test-all test-native test-node test-node-all test-checkpoints test-browser \
        test-browser-all test-firefox test-notebook spec spec-check print-engine-sources weights bench fuzz clean help

all: native wasm

help:
	@echo "make               native and wasm"
	@echo "make deps          the toolchain and the pinned npm packages, when missing (tools/install-deps.sh)"
	@echo "make native        build/attn (CLI) and the native tests"
	@echo "make wasm          web/dist/attn.wasm (emcc -O3 -msimd128, wasm-opt -O3)"
	@echo "make web           wasm, then the page bundle and weight scripts in web/dist (./build.sh web)"
	@echo "make spec          c/spec.h from c/spec.mjs (the format and the wasm boundary)"
	@echo "make spec-check    fails when c/spec.h is not what c/spec.mjs gives"
	@echo "make lint          the JavaScript through eslint (eslint.config.mjs) and format-check (part of test and test-all)"
	@echo "make format        the C sources formatted by $(CLANG_FORMAT) (.clang-format)"
	@echo "make format-check  fails when a C source is not as make format leaves it"
	@echo "make test          the fast loop: spec-check, mutate-check, lint, native (ASan+UBSan), parity, node --test, browser core set"
	@echo "make test-all      everything (CI): test + fuzz regressions, slow node tests, 12-layer shapes,"
	@echo "                   bench smoke, checkpoint search, full browser suite (throttled loads), valgrind"
	@echo "make test-native   the native tests and the CLI under ASan+UBSan, tests/cli.sh"
	@echo "make test-node     tests/parity.mjs and node --test (without the slow tests of test-node-all)"
	@echo "make test-node-all tests/parity.mjs and every node --test file and test (ATTN_TEST_ALL=1)"
	@echo "make test-checkpoints  $(FLOAT_CHECKPOINT) through the precision search, held to the parity bar"
	@echo "make test-browser  the browser core set in Chromium (node --test tests/browser/chromium.test.mjs)"
	@echo "make test-browser-all  the full browser suite, throttled page loads included, then the fault cases (faults.test.mjs)"
	@echo "make test-fuzz-regressions  the fuzz corpora and every crash ever found, replayed (ASan+UBSan)"
	@echo "make test-valgrind the CLI under valgrind: errors or leaks fail"
	@echo "make test-firefox  the browser suite's Firefox set in firefox-esr (part of test-all)"
	@echo "make test-notebook README's notebook lines run by Debian's Jupyter, the export and one file in Chromium (part of test-all)"
	@echo "make weights       re-convert $(CHECKPOINT) into $(WEIGHTS)"
	@echo "make bench         engine vs onnxruntime-web (Chromium and Node)"
	@echo "make bench-smoke   the bench scripts' smoke test (10 rounds)"
	@echo "make profile       where the time goes, per length and part, in Node and Chromium (PROFILE_ARGS)"
	@echo "make scale         a base-size BERT (12 x 768): ours vs ORT-web f32, per-token cost, memory, CLI SIMD vs scalar (SCALE_ARGS)"
	@echo "make fuzz          libFuzzer targets, FUZZ_SECONDS (60) each"
	@echo "make mutate        product mutations against the tests that should catch them (a test past its limit: caught)"
	@echo "make mutate-check  every mutation's text is in the tree (part of test and test-all)"
	@echo "make print-engine-sources  the engine's C sources, for build.sh"
	@echo "make clean         remove build/ (the float64 reference cache, build/cache, too)"

print-engine-sources:
	@echo $(ENGINE)

# c/spec.h is generated and committed; the check runs first in `make test` and `make test-all`.
spec c/spec.h: c/spec.mjs tools/gen-spec.mjs
	node tools/gen-spec.mjs

spec-check:
	node tools/gen-spec.mjs --check

# The JavaScript linted (npm eslint, eslint.config.mjs: unused variables and imports are errors),
# and the C sources checked against .clang-format.
lint: format-check
	node_modules/.bin/eslint --max-warnings 0 .

# The C sources in .clang-format's style, but the generated ones (c/spec.h, c/unicode_tables.c and .h).
CLANG_FORMAT ?= clang-format-14
FORMATTED := $(filter-out c/spec.h c/unicode_tables.c c/unicode_tables.h,$(wildcard c/*.c c/*.h tests/native/*.c tests/fuzz/*.c bench/*.c))

format:
	$(CLANG_FORMAT) -i $(FORMATTED)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(FORMATTED)

native: build/attn build/test_tokenizer build/test_weights build/test_kernels build/test_parts build/test_session

build/attn: $(ENGINE) c/cli.c $(HEADERS)
	@mkdir -p build
	$(CC) $(WARN) $(CFLAGS) -o $@ $(ENGINE) c/cli.c -lm

build/test_%: tests/native/test_%.c tests/native/test_util.h $(ENGINE) $(HEADERS)
	@mkdir -p build
	$(CC) $(WARN) $(CFLAGS) -Ic -o $@ $< $(ENGINE) -lm $(TEST_LDFLAGS)

# The engine compiled once under the sanitizers, linked into each native test and the CLI.
SAN_OBJ := $(patsubst c/%.c,build/san/obj/%.o,$(ENGINE))
.SECONDARY: $(SAN_OBJ)

build/san/obj/%.o: c/%.c $(HEADERS)
	@mkdir -p $(@D)
	clang $(WARN) $(SAN) -c -o $@ $<

build/san/test_%: tests/native/test_%.c tests/native/test_util.h $(SAN_OBJ)
	clang $(WARN) $(SAN) -Ic -o $@ $< $(SAN_OBJ) -lm $(TEST_LDFLAGS)

# test_session makes allocations fail at will (its __wrap_malloc).
build/test_session build/san/test_session: TEST_LDFLAGS := -Wl,--wrap=malloc

build/san/attn: c/cli.c $(SAN_OBJ)
	clang $(WARN) $(SAN) -o $@ c/cli.c $(SAN_OBJ) -lm

wasm: web/dist/attn.wasm

web/dist/attn.wasm: $(ENGINE) $(HEADERS) build.sh Makefile
	./build.sh wasm

# tests/native/test_kernels.c for wasm SIMD128, run by tests/kernels.test.mjs under WASI.
build/test_kernels.wasm: tests/native/test_kernels.c c/kernels.c c/linear.c c/linear_kernel.h $(HEADERS)
	@mkdir -p build
	emcc -O3 -msimd128 $(WARN) -Ic -o $@ $< c/kernels.c c/linear.c -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=1MB

web: wasm
	./build.sh web

weights:
	node weights/convert.mjs $(CHECKPOINT) $(WEIGHTS)

# The fast loop (≤ 5 min on 2 cores): the native and Node checks side by side (each one's output
# kept whole), then the browser's core set in BROWSER_SHARDS processes, a browser each.
test: deps
	$(MAKE) spec-check mutate-check lint
	$(MAKE) -j$(JOBS) wasm web build/test_kernels.wasm $(NATIVE_TEST_BINARIES)
	$(MAKE) -j2 --output-sync=target test-native test-node
	$(MAKE) test-browser

# What test-all runs, built first and in parallel (the checks themselves then run one by one).
TEST_BINARIES = $(addprefix build/san/,test_tokenizer test_weights test_kernels test_parts test_session attn) build/attn \
                 $(addprefix build/fuzz/regress_,$(FUZZ_TARGETS)) build/valgrind/attn build/test_kernels.wasm build/peak.wasm

test-all: deps
	$(MAKE) spec-check mutate-check lint
	$(MAKE) -j$(JOBS) wasm $(TEST_BINARIES)
	$(MAKE) test-native test-fuzz-regressions test-node-all test-checkpoints test-browser-all test-firefox test-notebook test-valgrind

deps:
	@tools/install-deps.sh

# Native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang).
NATIVE_TEST_BINARIES := build/san/test_tokenizer build/san/test_weights build/san/test_kernels build/san/test_parts build/san/test_session build/san/attn build/attn build/scalar/test_kernels
test-native: $(NATIVE_TEST_BINARIES)
	$(LIMIT) 300 build/san/test_tokenizer $(WEIGHTS) tests/fixtures/tokenize.jsonl tests/fixtures/vocab_roundtrip.json
	@test -d $(CHECKPOINT) || { echo "test-native: $(CHECKPOINT) is missing"; exit 1; }
	$(LIMIT) 300 build/san/test_weights $(WEIGHTS) $(CHECKPOINT)
	$(LIMIT) 300 build/san/test_kernels
	$(LIMIT) 300 build/scalar/test_kernels
	$(LIMIT) 300 build/san/test_parts $(WEIGHTS)
	$(LIMIT) 300 build/san/test_session $(WEIGHTS)
	$(LIMIT) 300 build/san/attn "The cat sat on the [MASK]." --mask --json --ablate 2.1,3.4 > /dev/null
	$(LIMIT) 300 build/san/attn "The cat sat on the mat." --layer 2 --head 1 --token cat > /dev/null
	$(LIMIT) 300 build/san/attn "The cat sat on the [MASK]." --mask --json > /dev/null
	$(LIMIT) 300 tests/cli.sh build/attn

# Skipped tests are counted and listed; under CI (CI=true) a skip means a missing prerequisite
# (../shared, the native build, Chromium) and fails the run. `make test` leaves the slow files
# (NODE_TESTS_ALL_ONLY) and the tests marked with tests/lib/slow.mjs to `make test-all`
# (ATTN_TEST_ALL=1): those skips are counted apart and never fail the run.
NODE_TESTS_ALL_ONLY := tests/tokenizer-exhaustive.test.mjs tests/bench-smoke.test.mjs
NODE_TESTS := $(filter-out $(NODE_TESTS_ALL_ONLY),$(wildcard tests/*.test.mjs))
# One test file per core, two at least (node's default on 2 cores is one). Each test has its own
# limit (tests/lib/test-limit.mjs: a hang fails in minutes and names the test), each file 15 min.
NODE_TEST_FLAGS ?= --test-concurrency=$(JOBS) --import ./tests/lib/test-limit.mjs --test-timeout=900000
define node-tests
	@mkdir -p build
	node --test $(NODE_TEST_FLAGS) $(1) | tee build/node-tests.tap
	@skips=$$(grep -E '^ *ok [0-9]+ - .*# SKIP' build/node-tests.tap | grep -v '# SKIP runs in make test-all' || true); \
	later=$$(grep -cE '^ *ok [0-9]+ - .*# SKIP runs in make test-all' build/node-tests.tap || true); \
	count=$$(grep -c . <<<"$$skips" || true); [ -n "$$skips" ] || count=0; \
	echo "node tests: $$count skipped, $${later:-0} left to make test-all"; [ -z "$$skips" ] || sed 's/^ */  /' <<<"$$skips"; \
	if [ "$$count" -gt 0 ] && [ "$${CI:-}" = true ]; then echo "node tests: skipped under CI: each names its missing prerequisite"; exit 1; fi
endef

test-node: wasm build/test_kernels.wasm build/attn
	$(LIMIT) 300 node tests/parity.mjs
	$(call node-tests,$(NODE_TESTS))

test-node-all: export ATTN_TEST_ALL = 1
test-node-all: wasm build/test_kernels.wasm build/peak.wasm build/attn
	$(LIMIT) 300 node tests/parity.mjs
	$(call node-tests,tests/*.test.mjs)

# The float-trained checkpoint, where precision must be spent: converted with the precision
# search (--precision auto --target 1e-3), then held to the same parity bar on its own fixtures.
test-checkpoints: wasm
	@test -d $(FLOAT_CHECKPOINT) || { echo "test-checkpoints: $(FLOAT_CHECKPOINT) is missing"; exit 1; }
	@mkdir -p build
	$(LIMIT) 300 node weights/convert.mjs $(FLOAT_CHECKPOINT) build/bert-mini-mlm.auto.bin --precision auto --target 1e-3 2>&1 | tail -3
	$(LIMIT) 300 node tests/parity.mjs --weights build/bert-mini-mlm.auto.bin --attention tests/fixtures/attention --mlm tests/fixtures/mlm.json
	$(LIMIT) 300 node tests/parity.mjs --weights build/bert-mini-mlm.auto.bin --attention tests/fixtures/pairs

# The browser suite (tests/browser/run.mjs's table, topic modules in tests/browser/topics/) on
# node:test, one file a browser, and the fault and notebook files (faults.test.mjs,
# notebook.test.mjs); BROWSER_TEST_FLAGS=--test-name-pattern=testFrench runs one test.
BROWSER_TEST_FLAGS ?= --test-reporter=spec
BROWSER_SHARDS ?= 2
BROWSER_SHARD_TARGETS := $(addprefix test-browser-shard-,$(shell seq 1 $(BROWSER_SHARDS)))
test-browser: web
	$(MAKE) -j$(BROWSER_SHARDS) --output-sync=target $(BROWSER_SHARD_TARGETS)

# One of the core set's BROWSER_SHARDS parts (suite.mjs, ATTN_BROWSER_SHARD).
test-browser-shard-%: web
	ATTN_BROWSER_SET=core ATTN_BROWSER_SHARD=$*/$(BROWSER_SHARDS) node --test $(BROWSER_TEST_FLAGS) tests/browser/chromium.test.mjs

test-browser-all: web
	ATTN_BROWSER_SET=all node --test $(BROWSER_TEST_FLAGS) tests/browser/chromium.test.mjs
	$(LIMIT) 600 node --test $(BROWSER_TEST_FLAGS) tests/browser/faults.test.mjs

# The browser suite's Firefox set (run.mjs's FIREFOX) in Debian's firefox-esr, driven over WebDriver BiDi.
test-firefox: web
	node --test $(BROWSER_TEST_FLAGS) tests/browser/firefox.test.mjs

# The notebook helper (web/notebook/) in a kernel of Debian's Jupyter, its HTML export and the
# one-file page opened alone from file:// in Chromium (tests/browser/topics/notebook.mjs).
test-notebook: web
	$(LIMIT) 1200 node --test $(BROWSER_TEST_FLAGS) tests/browser/notebook.test.mjs

# ---------------------------------------------------------------- bench (bench/README.md)
# Our wasm engine vs onnxruntime-web (f32 and int8, 1 thread) on ../shared/peers/, in headless
# Chromium and then in Node, each ending with its `speedup (chromium):` / `speedup:` line.
# BENCH_ARGS go to both (e.g. --lengths 16,128 --weights FILE). bench-smoke: 10 rounds in 2 blocks, n = 8, 16.
.PHONY: bench-smoke
bench: wasm build/peak.wasm
	node bench/browser.mjs $(BENCH_ARGS)
	node bench/bench.mjs $(BENCH_ARGS)

bench-smoke: wasm build/peak.wasm
	node --test tests/bench-smoke.test.mjs

build/peak.wasm: bench/peak.c
	@mkdir -p build
	emcc -O3 -msimd128 -std=c11 -Wall -Wextra -Werror bench/peak.c -o $@ --no-entry -sSTANDALONE_WASM

# Where the time goes, per length and part, in Node and Chromium (bench/profile.mjs).
# What a base-size BERT costs (bench/scale.mjs; the checkpoint is made once into build/scale/).
.PHONY: scale
scale: wasm build/attn build/scalar/attn
	node bench/scale.mjs $(SCALE_ARGS)

.PHONY: profile
profile: wasm build/peak.wasm build/profile.wasm
	node bench/profile.mjs $(PROFILE_ARGS)

build/profile.wasm: bench/profile.c $(ENGINE) $(HEADERS)
	@mkdir -p build
	emcc -O3 -msimd128 $(WARN) -Ic bench/profile.c c/forward.c c/kernels.c c/weights.c -o $@ \
	  --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=32MB -sMAXIMUM_MEMORY=512MB \
	  -sTOTAL_STACK=1MB -sERROR_ON_UNDEFINED_SYMBOLS=0 -sWARN_ON_UNDEFINED_SYMBOLS=0

clean:
	rm -rf build

# ---------------------------------------------------------------- robustness (tests/fuzz/, valgrind)
# libFuzzer targets (clang, ASan + UBSan, FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION so that the
# loader skips only its checksum comparison). Coverage instrumentation goes on the code that
# parses and validates input; the numeric code runs sanitized but uninstrumented and at -O2, and
# c/kernels.c and c/linear.c under ASan only: UBSan's checks in the inner loops make a 512-token run 6x slower.
.PHONY: test-fuzz-regressions test-valgrind mutate mutate-check
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_tokenizer fuzz_weights fuzz_run
FUZZ_CFLAGS  := $(WARN) -g -fno-sanitize-recover=all -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -Ic
FUZZ_GUIDED  := $(patsubst c/%.c,build/fuzz/guided/%.o,c/attn.c c/tokenizer.c c/weights.c)
FUZZ_PLAIN   := $(patsubst c/%.c,build/fuzz/plain/%.o,c/attn.c c/tokenizer.c c/weights.c)
FUZZ_NUMERIC := $(patsubst c/%.c,build/fuzz/plain/%.o,c/forward.c c/analysis.c c/unicode_tables.c) \
                build/fuzz/asan/kernels.o build/fuzz/asan/linear.o
.SECONDARY: $(FUZZ_GUIDED) $(FUZZ_PLAIN) $(FUZZ_NUMERIC)

build/fuzz/guided/%.o: c/%.c $(HEADERS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -O1 -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

build/fuzz/plain/%.o: c/%.c $(HEADERS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -O2 -fsanitize=address,undefined -c -o $@ $<

build/fuzz/asan/%.o: c/%.c $(HEADERS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -O2 -fsanitize=address -c -o $@ $<

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(FUZZ_GUIDED) $(FUZZ_NUMERIC)
	clang $(FUZZ_CFLAGS) -O1 -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_GUIDED) $(FUZZ_NUMERIC) -lm

build/fuzz/regress_%: tests/fuzz/%.c tests/fuzz/regression_main.c tests/fuzz/fuzz_util.h $(FUZZ_PLAIN) $(FUZZ_NUMERIC)
	clang $(FUZZ_CFLAGS) -O1 -fsanitize=address,undefined -o $@ $< tests/fuzz/regression_main.c \
	    $(FUZZ_PLAIN) $(FUZZ_NUMERIC) -lm

# Each target for FUZZ_SECONDS (default 60): "fuzz: <target> execs=<n> crashes=<n>"; fails on a crash.
fuzz: $(addprefix build/fuzz/,$(FUZZ_TARGETS))
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_TARGETS)

# The seed corpora and every crash ever found, replayed without libFuzzer (ASan + UBSan).
# A failing replay fails the target through `| tail -1` only because of -o pipefail above.
test-fuzz-regressions: $(addprefix build/fuzz/regress_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p tests/fuzz/regressions/$$t; \
	    $(LIMIT) 300 build/fuzz/regress_$$t tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t | tail -1 || \
	        { echo "regressions: $$t FAILED (rerun: build/fuzz/regress_$$t tests/fuzz/regressions/$$t)"; exit 1; }; \
	done

# Product mutations applied to a scratch copy, each against the tests that should catch it
# (tools/mutate.mjs; not part of `make test`): "mutations: N caught, M survived".
mutate:
	node tools/mutate.mjs $(MUTATE_ARGS)

# Every mutation's text still in the tree (in make test and test-all: a reshaped line fails here,
# not when make mutate next runs).
mutate-check:
	node tools/mutate.mjs --check

# The native CLI (-O1 -g, no sanitizers) under valgrind: errors or leaks fail.
build/valgrind/attn: $(ENGINE) c/cli.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -o $@ $(ENGINE) c/cli.c -lm

test-valgrind: build/valgrind/attn
	$(LIMIT) 900 tests/native/valgrind.sh build/valgrind/attn

# All attention of one text as raw float32, for the native-vs-wasm determinism test; the
# scalar one is built from the portable path of c/simd.h (-DATTN_SCALAR), as other targets are.
build/dump_attention: tests/native/dump_attention.c $(ENGINE) $(HEADERS)
	@mkdir -p build
	$(CC) $(WARN) $(CFLAGS) -Ic -o $@ $< $(ENGINE) -lm

build/scalar/dump_attention: tests/native/dump_attention.c $(ENGINE) $(HEADERS)
	@mkdir -p build/scalar
	$(CC) $(WARN) $(CFLAGS) -DATTN_SCALAR -Ic -o $@ $< $(ENGINE) -lm

# The same for arm64 (NEON, and portable), static, run under qemu-aarch64 by the determinism test.
ARM64_CC ?= aarch64-linux-gnu-gcc
build/arm64/dump_attention: tests/native/dump_attention.c $(ENGINE) $(HEADERS)
	@mkdir -p build/arm64
	$(ARM64_CC) $(WARN) -O2 -static -Ic -o $@ $< $(ENGINE) -lm

build/arm64/scalar_dump_attention: tests/native/dump_attention.c $(ENGINE) $(HEADERS)
	@mkdir -p build/arm64
	$(ARM64_CC) $(WARN) -O2 -static -DATTN_SCALAR -Ic -o $@ $< $(ENGINE) -lm

build/scalar/attn: $(ENGINE) c/cli.c $(HEADERS)
	@mkdir -p build/scalar
	$(CC) $(WARN) $(CFLAGS) -DATTN_SCALAR -o $@ $(ENGINE) c/cli.c -lm

build/scalar/test_kernels: tests/native/test_kernels.c tests/native/test_util.h $(ENGINE) $(HEADERS)
	@mkdir -p build/scalar
	$(CC) $(WARN) $(CFLAGS) -DATTN_SCALAR -Ic -o $@ $< $(ENGINE) -lm
