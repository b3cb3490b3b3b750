#!/bin/sh
# Builds a consumer module from C with clang (no libc needed).
# Usage: ./build.sh [source.c] [output.wasm]   (defaults: consumer.c, build/consumer.wasm)
set -eu
kit=$(dirname "$0")
src=${1:-$kit/consumer.c}
out=${2:-$kit/build/consumer.wasm}
mkdir -p "$(dirname "$out")"
exec clang --target=wasm32 -O2 -Wall -nostdlib -Wl,--no-entry -I"$kit" -o "$out" "$src"
