#!/usr/bin/env bash
# Renders every page of kbstudio from a database to PNG files at 1280x800.
#
#   scripts/render-screenshots.sh DB OUTDIR
#
# Uses the offscreen Qt platform unless QT_QPA_PLATFORM is set (e.g. to xcb under xvfb-run).
# The kbstudio binary is $KBSTUDIO, else build/dev/gui/kbstudio, else kbstudio on PATH.
# When optipng is installed, the PNGs are losslessly shrunk.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 DB OUTDIR" >&2
    exit 2
fi
db=$1
out=$2
if [[ ! -f "$db" ]]; then
    echo "$0: no database at $db (make one: kbstudio-cli run --suite sample --models demo-a,demo-b --db $db)" >&2
    exit 1
fi

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${KBSTUDIO:-}
if [[ -z "$bin" ]]; then
    if [[ -x "$root/build/dev/gui/kbstudio" ]]; then
        bin="$root/build/dev/gui/kbstudio"
    elif command -v kbstudio >/dev/null; then
        bin=$(command -v kbstudio)
    else
        echo "$0: kbstudio not found; build it (cmake --build build/dev) or set KBSTUDIO" >&2
        exit 1
    fi
fi

mkdir -p "$out"
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
# Fonts differ between machines; a fixed scale keeps the pictures comparable.
export QT_SCALE_FACTOR=${QT_SCALE_FACTOR:-1}
"$bin" --db "$db" --screenshots "$out"

if command -v optipng >/dev/null; then
    optipng -quiet -o2 "$out"/*.png
fi
ls -l "$out"/*.png
