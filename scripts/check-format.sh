#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Checks that every C++ file in the repository is formatted with .clang-format (ns-3.37's style,
# STYLE.md rule 6), as clang-format 14 (Debian 12's) formats it; other versions break some lines
# differently, so they are not used for the check.
# With --fix it reformats the files in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
[ "${1:-}" = "--fix" ] && fix=1
cf=""
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null && "$c" --version | grep -q 'version 14\.'; then
    cf="$c"
    break
  fi
done
if [ -z "$cf" ]; then
  echo "check-format: needs clang-format 14 (scripts/install-deps.sh --format)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.h' '*.cc')
if [ "$fix" = 1 ]; then
  "$cf" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not formatted (run scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
