#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the grant store's tests and prints, on its last
# line, the export that points the tests at it:
#
#   eval "$(bash .ci/postgres.sh | tail -n 1)"    # start (installs PostgreSQL if needed)
#   go test ./grants/sqlstore/                    # the PostgreSQL tests now run
#   bash .ci/postgres.sh stop                     # stop the server this script started
#
# Meant for a fresh Debian machine as root (CI): it installs the distribution's
# `postgresql` package when no server binaries are present (apt-get update, then
# apt-get install -y postgresql), then runs initdb and pg_ctl as the `postgres` user on
# a data directory under $TMPDIR, listening on 127.0.0.1 only, with trust
# authentication and fsync off: for tests, never for data you keep. No systemd needed.
# Idempotent: a second run reuses the running server and the existing database.
#
# Settings (environment): DEFERRED_TOOLS_PG_PORT (default 54329),
# DEFERRED_TOOLS_PG_DB (default deferredtools_test), DEFERRED_TOOLS_PG_FORCE_INSTALL=1
# to run apt-get even when binaries are present. Progress goes to stderr; stdout holds
# only the export line.
set -euo pipefail

port="${DEFERRED_TOOLS_PG_PORT:-54329}"
dbname="${DEFERRED_TOOLS_PG_DB:-deferredtools_test}"
base="${TMPDIR:-/tmp}/deferredtools-pg-${port}"
data="$base/data"
sock="$base/sock"
log="$base/server.log"

say() { echo "postgres.sh: $*" >&2; }

find_bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
		echo "$d"
	fi
}

# as_pg runs a command as the postgres user when root, else as the caller.
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

bindir=$(find_bindir)

if [ "${1:-}" = "stop" ]; then
	if [ -n "$bindir" ] && [ -f "$data/postmaster.pid" ]; then
		as_pg "$bindir/pg_ctl" -D "$data" -m fast -w stop >&2
		say "stopped the server on port $port"
	else
		say "no server of this script is running on port $port"
	fi
	exit 0
fi

if [ -z "$bindir" ] || [ "${DEFERRED_TOOLS_PG_FORCE_INSTALL:-}" = "1" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		say "PostgreSQL is not installed and installing it needs root"; exit 1
	fi
	if [ -z "$bindir" ] && [ ! -e /etc/postgresql-common/createcluster.conf ]; then
		# No packaged "main" cluster on port 5432: this script runs its own server.
		mkdir -p /etc/postgresql-common
		echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
	fi
	say "installing PostgreSQL from the Debian packages"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update >&2
	apt-get install -y postgresql >&2
	bindir=$(find_bindir)
	if [ -z "$bindir" ]; then
		say "apt-get installed no PostgreSQL server binaries"; exit 1
	fi
fi
say "using $bindir"

mkdir -p "$base" "$sock"
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$base" "$sock"
fi

if [ ! -f "$data/PG_VERSION" ]; then
	say "initialising $data"
	as_pg "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >&2
fi

if as_pg "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
	say "server already running on port $port"
else
	say "starting the server on 127.0.0.1:$port"
	as_pg "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 start -o \
		"-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$sock -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" >&2 \
		|| { say "server failed to start; its log:"; cat "$log" >&2 || true; exit 1; }
fi

psql=("$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 -qtA)
for _ in $(seq 1 60); do
	if as_pg "${psql[@]}" -d postgres -c "SELECT 1" >/dev/null 2>&1; then
		break
	fi
	sleep 1
done
if [ "$(as_pg "${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$dbname'")" != "1" ]; then
	say "creating database $dbname"
	as_pg "${psql[@]}" -d postgres -c "CREATE DATABASE \"$dbname\"" >&2
fi

echo "export DEFERRED_TOOLS_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/$dbname?sslmode=disable"
