#!/bin/sh
# Builds a consumer module from Rust (needs the target: rustup target add wasm32-unknown-unknown).
# Usage: ./build.sh                       consumer/ -> build/consumer.wasm
#        ./build.sh --example NAME OUT    sdk/examples/NAME.rs -> OUT
set -eu
kit=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--example" ]; then
    cargo build --quiet --locked --release --target wasm32-unknown-unknown \
        --manifest-path "$kit/Cargo.toml" -p pruefstein-sdk --example "$2"
    from="$kit/target/wasm32-unknown-unknown/release/examples/$(echo "$2" | tr - _).wasm"
    out=$3
else
    cargo build --quiet --locked --release --target wasm32-unknown-unknown \
        --manifest-path "$kit/Cargo.toml" -p consumer
    from="$kit/target/wasm32-unknown-unknown/release/consumer.wasm"
    out=${1:-$kit/build/consumer.wasm}
fi
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
    from="$CARGO_TARGET_DIR/${from#"$kit/target/"}"
fi
mkdir -p "$(dirname "$out")"
cp "$from" "$out"
