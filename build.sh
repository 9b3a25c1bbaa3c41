#!/usr/bin/env bash
# Builds the engine to WebAssembly and the files the page loads.
#   ./build.sh           everything (wasm, page bundle), installing missing tools first
#   ./build.sh wasm      web/dist/attn.wasm only
#   ./build.sh --open    everything, then opens web/index.html in a browser
set -euo pipefail
cd "$(dirname "$0")"
export NODE_PATH=/usr/share/nodejs   # Debian's emcc needs its JS modules from here

read -ra ENGINE <<< "$(MAKEFLAGS= MAKELEVEL= make -s --no-print-directory print-engine-sources 2>/dev/null)"  # the one list: the Makefile's
EXPORTS=$(grep -oE '\battn_[a-z_]+\(' c/attn.h | tr -d '(' | sort -u | sed 's/^/_/' | paste -sd, -)

build_wasm() {
  mkdir -p web/dist build
  emcc -O3 -msimd128 -std=c11 -Wall -Wextra -Werror "${ENGINE[@]}" -o build/attn.raw.wasm \
    --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=16MB \
    -sMAXIMUM_MEMORY=1GB -sTOTAL_STACK=1MB -sEXPORTED_FUNCTIONS="$EXPORTS" -sFILESYSTEM=0
  wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
    build/attn.raw.wasm -o web/dist/attn.wasm
  echo "web/dist/attn.wasm: $(stat -c %s web/dist/attn.wasm) bytes"
}

build_web() {
  node tools/build-web.mjs
}

need() { command -v "$1" >/dev/null 2>&1; }

case "${1:-all}" in
  wasm) build_wasm ;;
  web) build_web ;;
  all|--open)
    # the toolchain and the pinned npm packages (esbuild bundles the page)
    need emcc && need wasm-opt && [ -d node_modules/esbuild ] || tools/install-deps.sh
    build_wasm
    build_web
    if [ "${1:-}" = --open ]; then
      page="$(pwd)/web/index.html"
      echo "opening $page"
      xdg-open "$page" 2>/dev/null || sensible-browser "$page" 2>/dev/null ||
        echo "open $page in a browser"
    fi ;;
  *) echo "usage: ./build.sh [wasm|web|--open]" >&2; exit 2 ;;
esac
