#!/usr/bin/env bash
# Every tracked C++ source and header must be formatted as .clang-format says (clang-format 14,
# Debian 12). Prints the first differences and exits non-zero when a file differs.
#   scripts/check-format.sh          check
#   scripts/check-format.sh --fix    format in place
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find cli db engine gui tests bench -name '*.cpp' -o -name '*.h' | sort)
fi
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/kbstudio-format.$$; then
  grep -E '^[^ ].*(error|warning):' /tmp/kbstudio-format.$$ | cut -d: -f1 | sort -u | sed 's/^/  not formatted: /'
  rm -f /tmp/kbstudio-format.$$
  echo "C++ formatting differs from .clang-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/kbstudio-format.$$
echo "C++ formatting: ${#files[@]} files as .clang-format says"
