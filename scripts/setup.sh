#!/usr/bin/env bash
# Installs the Debian 12 packages tsch needs (only the missing ones) and builds it (Release)
# into build/. Safe to re-run: the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  default-jre-headless antlr4 libantlr4-runtime-dev uuid-dev
  libfmt-dev catch2 libreadline-dev libjemalloc-dev
  # the schedule trace's JSON form
  nlohmann-json3-dev
  # code generation (ORC JIT); export_library's link step and target "c" use cc (build-essential)
  llvm-19-dev
  # tmux drives the REPL tests; vim runs the syntax tests headless
  tmux vim
  # scripts/check-format.sh (the one clang-format version the tree is formatted with)
  clang-format-19
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Editor tests: the TextMate grammar checker and vsce (.vsix packaging) from npm, pinned by a
# lock file. Install scripts are skipped: vsce's optional native keyring helpers are not needed
# to package an extension.
if ! command -v npm > /dev/null; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends nodejs npm
fi
tools=build/npm-tools
if [ ! -x "$tools/node_modules/.bin/vscode-tmgrammar-test" ] ||
   ! cmp -s tests/editors/vscode/tools/package-lock.json "$tools/package-lock.json"; then
  mkdir -p "$tools"
  cp tests/editors/vscode/tools/package.json tests/editors/vscode/tools/package-lock.json "$tools/"
  (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j "$jobs"
