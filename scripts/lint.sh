#!/usr/bin/env bash
# ruff and mypy over the whole tree, as CI runs them.
#
# mypy reads the code as the installed `monologue` package sees it: the top-level
# folders are linked under .cache/typecheck/monologue/ (the editable install maps them
# with an import hook, which type checkers cannot follow).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
tree=.cache/typecheck/monologue
rm -rf .cache/typecheck && mkdir -p "$tree"
for folder in configs dialogue memory models pipeline processors sim; do ln -s "../../../$folder" "$tree/$folder"; done
"$python" -m ruff check .
"$python" -m mypy "$tree" tests scripts
