# Starts a throwaway PostgreSQL for the tests and exports
# CONNECT_TEST_DATABASE_URL; the cluster is stopped and removed on exit.
# Sourced by .ci/run. initdb refuses to run as root, so the cluster belongs to
# the postgres user, in a short directory that user can enter (unix socket
# paths are limited to 107 bytes).

start_postgres() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ]; then
    echo "installing postgresql-15"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
    bin=/usr/lib/postgresql/15/bin
  fi
  PG_DIR=$(mktemp -d /tmp/icpg.XXXXXX)
  chmod 0755 "$PG_DIR"
  chown postgres "$PG_DIR"
  PG_BIN=$bin
  runuser -u postgres -- "$bin/initdb" -D "$PG_DIR/data" -E UTF8 --locale=C -U postgres --auth=trust >/dev/null
  runuser -u postgres -- "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
    -o "-k $PG_DIR -c listen_addresses='' -c fsync=off -c max_connections=400" start >/dev/null
  trap stop_postgres EXIT
  export CONNECT_TEST_DATABASE_URL="postgres://postgres@/postgres?host=$PG_DIR&sslmode=disable"
  echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') at $PG_DIR"
}

stop_postgres() {
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
}
