#!/usr/bin/env bash
# Fails when a tracked C/C++ file differs from what .clang-format makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.h' '*.cc' '*.c')
clang-format --dry-run -Werror $files
echo "clang-format: $(echo "$files" | wc -l) files clean"
