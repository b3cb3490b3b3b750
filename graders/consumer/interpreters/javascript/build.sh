#!/bin/sh
# Builds javascript.wasm, the QuickJS-ng consumer guest, from vendor/ and glue/ with Debian's
# clang 14, lld and wasi-libc (apt: clang lld wasi-libc libclang-rt-14-dev-wasm32). QuickJS
# needs neither setjmp nor a conservative stack scan: no post-processing.
# The same inputs give the same bytes; javascript.wasm.sha256 records them.
# Usage: build.sh [output file]   (default: javascript.wasm beside this script)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/javascript.wasm}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$HERE/../embed_text.py" "$HERE/glue/sqlite.js" SQLITE_JS > "$WORK/sqlite_js.h"
if ! cmp -s "$WORK/sqlite_js.h" "$HERE/glue/sqlite_js.h"; then
    cp "$WORK/sqlite_js.h" "$HERE/glue/sqlite_js.h"
fi
python3 "$HERE/../embed_text.py" "$HERE/glue/broker.js" BROKER_JS > "$WORK/broker_js.h"
if ! cmp -s "$WORK/broker_js.h" "$HERE/glue/broker_js.h"; then
    cp "$WORK/broker_js.h" "$HERE/glue/broker_js.h"
fi
python3 "$HERE/../embed_text.py" "$HERE/glue/log.js" LOG_JS > "$WORK/log_js.h"
if ! cmp -s "$WORK/log_js.h" "$HERE/glue/log_js.h"; then
    cp "$WORK/log_js.h" "$HERE/glue/log_js.h"
fi
python3 "$HERE/../embed_text.py" "$HERE/glue/mail.js" MAIL_JS > "$WORK/mail_js.h"
if ! cmp -s "$WORK/mail_js.h" "$HERE/glue/mail_js.h"; then
    cp "$WORK/mail_js.h" "$HERE/glue/mail_js.h"
fi
CFLAGS="--target=wasm32-wasi --sysroot=/usr -isystem /usr/include/wasm32-wasi -O2 -std=gnu11
    -ffile-prefix-map=$HERE=. -fno-ident -D_GNU_SOURCE -DEMSCRIPTEN=1 -DFE_DOWNWARD=0 -DFE_UPWARD=0
    -DNDEBUG -DPRUEFSTEIN_STACK_LIMIT -DPRUEFSTEIN_CALLER_LINE -I$HERE/../common -I$HERE/glue -I$HERE/vendor -Wno-unused-command-line-argument
    -Wno-implicit-const-int-float-conversion"
cd "$HERE"
OBJS=""
PIDS=""
for src in vendor/quickjs.c vendor/libregexp.c vendor/libunicode.c vendor/dtoa.c glue/pruefstein.c; do
    obj="$WORK/$(echo "$src" | tr / _).o"
    # shellcheck disable=SC2086
    clang $CFLAGS -c "$src" -o "$obj" &
    PIDS="$PIDS $!"
    OBJS="$OBJS $obj"
done
for pid in $PIDS; do
    wait "$pid"
done
# shellcheck disable=SC2086
clang --target=wasm32-wasi --sysroot=/usr -L/usr/lib/wasm32-wasi -nostartfiles -O2 \
    -Wl,--no-entry -Wl,--export-table -Wl,-z,stack-size=1048576 -Wl,--stack-first \
    -Wl,--strip-all $OBJS -o "$OUT"
sha256sum "$OUT" | cut -d' ' -f1
