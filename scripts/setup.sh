#!/usr/bin/env bash
# KernelBench Studio set-up on Debian 12 (run as root, or with sudo available):
#   scripts/setup.sh demo   install what is missing, build, run the embedded demo, open the GUI
#   scripts/setup.sh test   install what is missing, build, run every test
# Environment: KBSTUDIO_BUILD_DIR (default build/dev), KBSTUDIO_DB (demo database path).
set -euo pipefail

mode="${1:-demo}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${KBSTUDIO_BUILD_DIR:-$root/build/dev}"

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6
  nlohmann-json3-dev libsqlite3-dev libgl-dev
  python3 python3-dev python3-numpy python3-torch libtorch-dev pybind11-dev
  bubblewrap xvfb xauth poppler-utils
  slurm-wlm munge
  qtkeychain-qt6-dev
  clang-format python3-flake8
)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "==> installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build_all() {
  echo "==> configuring and building in $build"
  # the "dev" preset of CMakePresets.json (Ninja, RelWithDebInfo), in the chosen folder
  cmake --preset dev -S "$root" -B "$build" -DKBSTUDIO_PYTHON=/usr/bin/python3 >/dev/null
  cmake --build "$build" -j"$(nproc)"
}

case "$mode" in
  demo)
    install_packages
    build_all
    db="${KBSTUDIO_DB:-${XDG_DATA_HOME:-$HOME/.local/share}/kbstudio/demo.kbdb}"
    mkdir -p "$(dirname "$db")"
    echo "==> running the sample suite with the offline demo provider (device: auto)"
    # The demo candidates are stored solutions, not a model: they show the machinery.
    KBSTUDIO_PYTHON=/usr/bin/python3 "$build/cli/kbstudio-cli" run --suite sample \
        --models demo-a,demo-b --db "$db" --device auto
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$build/gui/kbstudio" ]; then
      echo "==> opening the GUI on $db"
      exec "$build/gui/kbstudio" --db "$db"
    fi
    echo
    echo "No display: the report is above. The database is $db"
    echo "Open it later with: $build/gui/kbstudio --db $db"
    ;;
  test)
    install_packages
    echo "==> checking the C++ formatting (.clang-format)"
    bash "$root/scripts/check-format.sh"
    build_all
    echo "==> running the tests"
    export QT_QPA_PLATFORM=offscreen KBSTUDIO_PYTHON=/usr/bin/python3
    cd "$build"
    ctest --output-on-failure -j"$(nproc)" --timeout 900
    ;;
  *)
    echo "usage: $0 demo|test" >&2
    exit 2
    ;;
esac
