#!/usr/bin/env bash
# The database, metrics and engine unit tests built with AddressSanitizer and UBSan (the
# "dev-asan" preset of CMakePresets.json, without the GUI and benchmarks) and run; any
# sanitizer report fails the test that triggered it.
#   scripts/asan-tests.sh            build in build/dev-asan (KBSTUDIO_ASAN_BUILD_DIR) and run
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KBSTUDIO_ASAN_BUILD_DIR:-$root/build/dev-asan}"
pattern='^(db|metrics|engine)\.'

cmake --preset dev-asan -S "$root" -B "$build" -DKBSTUDIO_PYTHON=/usr/bin/python3 \
      -DKBSTUDIO_BUILD_GUI=OFF -DKBSTUDIO_BUILD_BENCH=OFF >/dev/null
# the test executables carry the tests' names
mapfile -t targets < <(ctest --test-dir "$build" -N -L unit -R "$pattern" | sed -n 's/^ *Test *#[0-9]*: //p')
[ ${#targets[@]} -gt 0 ] || { echo "no sanitizer tests found" >&2; exit 1; }
echo "==> building ${#targets[@]} test programs with AddressSanitizer and UBSan in $build"
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
echo "==> running them"
export QT_QPA_PLATFORM=offscreen KBSTUDIO_PYTHON=/usr/bin/python3
# halt on the first report of either sanitizer; leaks are reported at exit and fail the test
export ASAN_OPTIONS="abort_on_error=0:halt_on_error=1:detect_leaks=1:exitcode=23"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=23"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -L unit -R "$pattern" --timeout 900
