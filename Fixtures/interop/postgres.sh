#!/usr/bin/env bash
# Interop check on PostgreSQL: Django (psycopg, from PyPI in the interop venv) creates its tables in a fresh
# schema of the server STRATA_POSTGRES_URL names with its own migrations and fills them; the models `strata
# generate` writes for them read every row (PostgresInteropTests, as GeneratedFixtureModelTests on SQLite); Strata edits, deletes and inserts rows (PostgresInteropTests); Django's ORM reads every row back.
#   bash Scripts/with-postgres.sh bash Fixtures/interop/postgres.sh     (after `swift build --build-tests`)
# SWIFT_TEST_FLAGS may add flags to `swift test`. The schema is dropped on the way out.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${STRATA_POSTGRES_URL:-}" ]; then
    echo "interop (PostgreSQL): STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)" >&2
    exit 1
fi
venv="${STRATA_INTEROP_VENV:-.build/interop-venv}"
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        echo "interop: python3 -m venv is not available (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
fi
if ! "$venv/bin/python" -c "import django, psycopg" 2>/dev/null; then
    "$venv/bin/pip" install -q --disable-pip-version-check "django>=5.2,<6" "psycopg[binary]>=3.1,<4"
fi
python="$venv/bin/python"
script=Fixtures/interop/postgres.py
schema="strata_interop_$(date +%s)_$$"
folder=$(mktemp -d)
trap '"$python" "$script" drop "$STRATA_POSTGRES_URL" "$schema" || true; rm -rf "$folder"' EXIT
"$python" "$script" prepare "$STRATA_POSTGRES_URL" "$schema" >"$folder/before.json"

# shellcheck disable=SC2086
if ! STRATA_INTEROP_PG_SCHEMA="$schema" swift test --skip-build ${SWIFT_TEST_FLAGS:-} --filter PostgresInteropTests >"$folder/swift.log" 2>&1; then
    cat "$folder/swift.log"
    echo "interop (PostgreSQL): the Swift side (PostgresInteropTests) failed" >&2
    exit 1
fi
if grep -q "skipped" "$folder/swift.log" || ! grep -q "Test run with .* passed" "$folder/swift.log"; then
    cat "$folder/swift.log"
    echo "interop (PostgreSQL): PostgresInteropTests did not run" >&2
    exit 1
fi
grep -E "Test run with" "$folder/swift.log" || true
"$python" "$script" verify "$STRATA_POSTGRES_URL" "$schema" "$folder/before.json"
