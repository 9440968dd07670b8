#!/usr/bin/env bash
# Start or stop a throw-away PostgreSQL server on loopback for the test suite.
#   scripts/postgres.sh start   -> prints nothing; the server listens on 127.0.0.1:$CREVAL_PG_PORT
#   scripts/postgres.sh stop
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
port=${CREVAL_PG_PORT:-55432}
data="$here/.pgdata"
bindir=""
for d in /usr/lib/postgresql/*/bin; do [ -x "$d/pg_ctl" ] && bindir="$d"; done
[ -n "$bindir" ] || bindir=$(dirname "$(command -v pg_ctl)")
run() {
  # PostgreSQL refuses to run as root: use the 'postgres' system user when we are root.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "${1:-}" in
  start)
    if [ -f "$data/postmaster.pid" ] && run "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then exit 0; fi
    rm -rf "$data"; mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres "$data"
    run "$bindir/initdb" -D "$data" -U creval --auth=trust -E UTF8 >/dev/null
    run "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w \
      -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$data -c fsync=off -c max_connections=200" start >/dev/null
    run "$bindir/createdb" -h 127.0.0.1 -p "$port" -U creval creval_test
    ;;
  stop)
    [ -d "$data" ] && run "$bindir/pg_ctl" -D "$data" -m fast stop >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
