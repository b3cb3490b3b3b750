#!/bin/sh
# Fetches strip.wasm, the TypeScript type stripper (an OXC transform compiled to WebAssembly), from
# the PyPI package quickjs-rs 0.2.6 (MIT), which ships it as quickjs_rs/_transform.wasm: downloads
# the wheel with pip, checks the wheel's SHA-256, takes the module out and checks its SHA-256
# against strip.wasm.sha256.
# Usage: fetch.sh [output file]   (default: strip.wasm beside this script)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/strip.wasm}
WHEEL=quickjs_rs-0.2.6-py3-none-any.whl
WHEEL_SHA256=3591faae7eef58f41e01f50071795679f2b53042e40a64f3784546a6bde35339
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$WORK" "quickjs-rs==0.2.6"
echo "$WHEEL_SHA256  $WORK/$WHEEL" | sha256sum --check --quiet
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("quickjs_rs/_transform.wasm"))' \
    "$WORK/$WHEEL" > "$WORK/strip.wasm"
echo "$(cat "$HERE/strip.wasm.sha256")  $WORK/strip.wasm" | sha256sum --check --quiet
cp "$WORK/strip.wasm" "$OUT"
sha256sum "$OUT" | cut -d' ' -f1
