#!/bin/sh
# Builds python.wasm, the MicroPython consumer guest, from vendor/ and glue/ with Debian's clang
# 14, lld and wasi-libc (apt: clang lld wasi-libc libclang-rt-14-dev-wasm32), then spills
# pointers held in wasm locals to the shadow stack (binaryen's wasm-opt 132, npm
# `binaryen@132.0.0`, pinned by package-lock.json here: `npm ci`, or set WASM_OPT) so that the
# collector sees them.
# The same inputs give the same bytes; python.wasm.sha256 records them.
# Usage: build.sh [output file]   (default: python.wasm beside this script)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/python.wasm}
WASM_OPT=${WASM_OPT:-$HERE/node_modules/.bin/wasm-opt}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$HERE/../embed_text.py" "$HERE/glue/sqlite3.py" SQLITE3_PY > "$WORK/sqlite3_py.h"
if ! cmp -s "$WORK/sqlite3_py.h" "$HERE/glue/sqlite3_py.h"; then
    cp "$WORK/sqlite3_py.h" "$HERE/glue/sqlite3_py.h"
fi
python3 "$HERE/../embed_text.py" "$HERE/glue/broker.py" BROKER_PY > "$WORK/broker_py.h"
if ! cmp -s "$WORK/broker_py.h" "$HERE/glue/broker_py.h"; then
    cp "$WORK/broker_py.h" "$HERE/glue/broker_py.h"
fi
python3 "$HERE/../embed_text.py" "$HERE/glue/log.py" LOG_PY > "$WORK/log_py.h"
if ! cmp -s "$WORK/log_py.h" "$HERE/glue/log_py.h"; then
    cp "$WORK/log_py.h" "$HERE/glue/log_py.h"
fi
python3 "$HERE/../embed_text.py" "$HERE/glue/mail.py" MAIL_PY > "$WORK/mail_py.h"
if ! cmp -s "$WORK/mail_py.h" "$HERE/glue/mail_py.h"; then
    cp "$WORK/mail_py.h" "$HERE/glue/mail_py.h"
fi
CFLAGS="--target=wasm32-wasi --sysroot=/usr -isystem /usr/include/wasm32-wasi -O2 -std=gnu99
    -mllvm -enable-emscripten-sjlj -ffile-prefix-map=$HERE=. -fno-ident
    -I$HERE/../common -I$HERE/glue/include -I$HERE/glue -I$HERE/vendor -DNDEBUG -DPRUEFSTEIN_FRAMES=1 -DPRUEFSTEIN_CALL_LINE=1 -Wno-unused-command-line-argument"
cd "$HERE"
OBJS=""
for src in vendor/py/*.c vendor/extmod/modjson.c glue/pruefstein.c glue/sqlite3_native.c glue/sjlj.c; do
    obj="$WORK/$(echo "$src" | tr / _).o"
    # shellcheck disable=SC2086
    clang $CFLAGS -c "$src" -o "$obj"
    OBJS="$OBJS $obj"
done
# shellcheck disable=SC2086
clang --target=wasm32-wasi --sysroot=/usr -L/usr/lib/wasm32-wasi -nostartfiles -O2 \
    -Wl,--no-entry -Wl,--export-table -Wl,-z,stack-size=1048576 -Wl,--stack-first \
    $OBJS -o "$WORK/linked.wasm"
"$WASM_OPT" --spill-pointers -O2 --strip-debug --strip-producers "$WORK/linked.wasm" -o "$OUT"
sha256sum "$OUT" | cut -d' ' -f1
