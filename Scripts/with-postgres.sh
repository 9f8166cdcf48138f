#!/usr/bin/env bash
# Runs a command against a throw-away PostgreSQL 15 server: a fresh cluster in a temporary folder, listening
# on a Unix socket in that folder only (no TCP), trust authentication, fsync off. Exports
# STRATA_POSTGRES_URL (postgresql:///strata?host=DIR&user=postgres), runs the command, and stops the server
# and removes the folder on the way out, whether the command passed, failed or was interrupted.
# Run as root (the server runs as the postgres user). Usage: bash Scripts/with-postgres.sh CMD [ARGS...]
set -euo pipefail
if [ $# -eq 0 ]; then echo "usage: $0 CMD [ARGS...]" >&2; exit 2; fi
bin=${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$bin/initdb" ]; then
    echo "with-postgres: no initdb in $bin (apt-get install postgresql-15, or set POSTGRES_BIN)" >&2
    exit 1
fi
dir=$(mktemp -d /tmp/strata-pg.XXXXXX)
chown postgres: "$dir"
chmod 700 "$dir"
stop() {
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM
runuser -u postgres -- "$bin/initdb" -D "$dir/data" --auth=trust --no-sync -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-k $dir -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
runuser -u postgres -- "$bin/createdb" -h "$dir" -U postgres strata
export STRATA_POSTGRES_URL="postgresql:///strata?host=$dir&user=postgres"
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $dir"
status=0
"$@" || status=$?
exit $status
