#!/bin/sh
# Regenerates vendor/, MicroPython's C tree for the Python guest, from Debian's source package
# micropython 1.26.1+ds-1: `ports/embed`'s makefile with this folder's configuration
# (glue/mpconfigport.h) and `extmod/modjson.c` added. Needs deb-src access (a private apt
# configuration is used; nothing on the system changes), dpkg-dev, make, gcc and python3.
# Usage: regenerate.sh [an unpacked micropython source tree to use instead of downloading]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=1.26.1+ds-1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ $# -ge 1 ]; then
    SRC=$(cd "$1" && pwd)
else
    mkdir -p "$WORK/apt/lists/partial" "$WORK/src"
    printf 'deb-src http://deb.debian.org/debian trixie main\ndeb-src http://deb.debian.org/debian sid main\n' \
        > "$WORK/apt/sources.list"
    APT="-o Dir::Etc::sourcelist=$WORK/apt/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$WORK/apt/lists"
    # shellcheck disable=SC2086
    apt-get $APT update >/dev/null
    # shellcheck disable=SC2086
    (cd "$WORK/src" && apt-get $APT source --download-only "micropython=$VERSION" >/dev/null &&
        dpkg-source -x "micropython_$VERSION.dsc" mp >/dev/null)
    SRC="$WORK/src/mp"
fi
python3 "$HERE/../embed_text.py" "$HERE/glue/sqlite3.py" SQLITE3_PY > "$HERE/glue/sqlite3_py.h"
mkdir -p "$WORK/build"
cp "$HERE/glue/mpconfigport.h" "$WORK/build/"
rm -rf "$HERE/vendor"
(cd "$WORK/build" && make -s -f "$HERE/glue/mpy.mk" MICROPYTHON_TOP="$SRC" GLUE_DIR="$HERE/glue" \
    PACKAGE_DIR="$HERE/vendor" >/dev/null)
mkdir -p "$HERE/vendor/extmod"
cp "$SRC/extmod/modjson.c" "$HERE/vendor/extmod/"
cp "$SRC/LICENSE" "$HERE/vendor/LICENSE"
cp "$SRC/debian/copyright" "$HERE/vendor/debian-copyright"
# The VM keeps the chain of its frames (under PRUEFSTEIN_FRAMES, which build.sh sets), so that a
# statement can be traced with the line of consumer.py that made it.
patch -s -d "$HERE/vendor" -p0 < "$HERE/glue/frames.patch"
# A call whose arguments span several lines is told with the line where it starts, as CPython
# tells it (under PRUEFSTEIN_CALL_LINE, which build.sh sets).
patch -s -d "$HERE/vendor" -p0 < "$HERE/glue/call-lines.patch"
# A frame that returns tells the glue first, so that a delivery's return is traced with the line
# of consumer.py that returned (under PRUEFSTEIN_FRAMES).
patch -s -d "$HERE/vendor" -p0 < "$HERE/glue/return-line.patch"
# The embed port's own helpers are replaced by the glue (no stdio, a collector for wasm).
rm -f "$HERE/vendor/port/embed_util.c" "$HERE/vendor/port/mphalport.c" \
    "$HERE/vendor/shared/runtime/gchelper_generic.c"
echo "vendor/ regenerated from micropython $VERSION"
