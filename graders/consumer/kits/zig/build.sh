#!/bin/sh
# Builds a consumer module from Zig (the compiler comes from PyPI: pip install ziglang==0.17.1).
# Usage: ./build.sh [source.zig] [output.wasm]   (defaults: consumer.zig, build/consumer.wasm)
set -eu
kit=$(dirname "$0")
src=${1:-$kit/consumer.zig}
out=${2:-$kit/build/consumer.wasm}
mkdir -p "$(dirname "$out")"
: "${ZIG_GLOBAL_CACHE_DIR:=$kit/build/zig-cache}"
: "${ZIG_LOCAL_CACHE_DIR:=$ZIG_GLOBAL_CACHE_DIR}"
export ZIG_GLOBAL_CACHE_DIR ZIG_LOCAL_CACHE_DIR
exec "${PYTHON:-python3}" -m ziglang build-exe -target wasm32-freestanding -O ReleaseSmall -fno-entry \
    -rdynamic --stack 65536 --dep pruefstein -Mroot="$src" -Mpruefstein="$kit/pruefstein.zig" \
    -femit-bin="$out"
