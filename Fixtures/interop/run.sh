#!/usr/bin/env bash
# Interop check: Django, SQLAlchemy and peewee (from PyPI, in a venv) each build a database; Strata
# updates, inserts and deletes rows in it (InteropTests); then each tool reads every row back.
#   bash Fixtures/interop/run.sh        (SWIFT_TEST_FLAGS may add flags to `swift test`)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${STRATA_INTEROP_VENV:-.build/interop-venv}"
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        echo "interop: python3 -m venv is not available (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
fi
if ! "$venv/bin/python" -c "import django, sqlalchemy, peewee" 2>/dev/null; then
    "$venv/bin/pip" install -q --disable-pip-version-check "django>=5.2,<6" "sqlalchemy>=2.0,<3" "peewee>=3.17,<5"
fi
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
"$venv/bin/python" Fixtures/interop/interop.py prepare "$folder" >/dev/null
# Models `strata generate` writes for the Django database compile, read every row with an empty plan and
# leave the file byte-identical (on a copy, before Strata writes to the original).
# shellcheck disable=SC2086
if ! STRATA_INTEROP_DIR="$folder" swift test ${SWIFT_TEST_FLAGS:-} --filter GeneratedFixtureModelTests >"$folder/generated.log" 2>&1; then
    cat "$folder/generated.log"
    echo "interop: the models generated for the Django database failed" >&2
    exit 1
fi
grep -E "Test run with" "$folder/generated.log" || true
# shellcheck disable=SC2086
if ! STRATA_INTEROP_DIR="$folder" swift test ${SWIFT_TEST_FLAGS:-} --filter InteropTests >"$folder/swift.log" 2>&1; then
    cat "$folder/swift.log"
    echo "interop: the Swift side (InteropTests) failed" >&2
    exit 1
fi
grep -E "Test run with" "$folder/swift.log" || true
"$venv/bin/python" Fixtures/interop/interop.py verify "$folder"
