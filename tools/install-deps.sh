#!/usr/bin/env bash
# Installs what building and testing need on a Debian machine (run as root, or with sudo
# available): the emscripten toolchain, binaryen, clang's sanitizer runtime, clang-format-14
# (make format, format-check), valgrind, Chromium and Firefox ESR for the browser tests, the
# Unicode data the tokenizer tables are generated from, Debian's Jupyter (nbconvert and a
# Python kernel: the notebook helper's test executes a notebook), gcc for arm64 and qemu-user
# (the NEON kernels are built for arm64 and run under emulation by the determinism test), and
# the pinned npm packages.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(emscripten binaryen clang clang-format-14 libclang-rt-14-dev valgrind chromium firefox-esr make gcc nodejs npm unicode-data
  jupyter-nbconvert python3-ipykernel python3-notebook gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# A Node.js from elsewhere (nvm, nodesource) counts: only install Debian's when none runs.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}")
  missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]:-}"
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/puppeteer-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
