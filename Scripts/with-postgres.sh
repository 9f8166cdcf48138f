#!/usr/bin/env bash
# Runs a command against a throw-away PostgreSQL 15 server: a fresh cluster in a temporary folder, listening
# on a Unix socket in that folder only (no TCP), trust authentication, fsync off. Exports
# STRATA_POSTGRES_URL (postgresql:///strata?host=DIR&user=postgres), runs the command, and stops the server
# and removes the folder on the way out, whether the command passed, failed or was interrupted.
# Run as root (the server runs as the postgres user). Usage: bash Scripts/with-postgres.sh [--replica] CMD [ARGS...]
#
# --replica also starts a hot standby of that server (pg_basebackup -R, streaming replication over the Unix
# socket; the cluster's pg_hba already trusts local replication connections) on the same socket folder, port
# 5433, and exports STRATA_POSTGRES_REPLICA_URL for it. The primary then commits synchronously (still without
# fsync), so that a commit reaches the standby at once rather than at the WAL writer's next round (200 ms).
set -euo pipefail
replica=0
if [ "${1:-}" = "--replica" ]; then replica=1; shift; fi
if [ $# -eq 0 ]; then echo "usage: $0 [--replica] CMD [ARGS...]" >&2; exit 2; fi
bin=${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$bin/initdb" ]; then
    echo "with-postgres: no initdb in $bin (apt-get install postgresql-15, or set POSTGRES_BIN)" >&2
    exit 1
fi
dir=$(mktemp -d /tmp/strata-pg.XXXXXX)
chown postgres: "$dir"
chmod 700 "$dir"
stop() {
    if [ -d "$dir/standby" ]; then runuser -u postgres -- "$bin/pg_ctl" -D "$dir/standby" -m immediate -w stop >/dev/null 2>&1 || true; fi
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM
runuser -u postgres -- "$bin/initdb" -D "$dir/data" --auth=trust --no-sync -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
commit=off
if [ $replica -eq 1 ]; then commit=on; fi
runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-k $dir -c listen_addresses='' -c fsync=off -c synchronous_commit=$commit -c full_page_writes=off" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
runuser -u postgres -- "$bin/createdb" -h "$dir" -U postgres strata
export STRATA_POSTGRES_URL="postgresql:///strata?host=$dir&user=postgres"
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $dir"
if [ $replica -eq 1 ]; then
    # A copy of the primary as it is now (a fast checkpoint: no wait), the WAL since streamed alongside, and
    # -R's standby.signal and primary_conninfo, so the copy starts as a hot standby following the primary.
    runuser -u postgres -- "$bin/pg_basebackup" -h "$dir" -U postgres -D "$dir/standby" -R -X stream --checkpoint=fast \
        --no-sync >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/standby" -l "$dir/standby.log" -w \
        -o "-k $dir -p 5433 -c listen_addresses='' -c fsync=off -c hot_standby=on" start >/dev/null \
        || { cat "$dir/standby.log" >&2; exit 1; }
    export STRATA_POSTGRES_REPLICA_URL="postgresql:///strata?host=$dir&port=5433&user=postgres"
    echo "with-postgres: hot standby on $dir port 5433"
fi
status=0
"$@" || status=$?
exit $status
