#!/usr/bin/env bash
# Makes sure the PostgreSQL and Redis that the tests use are answering on 127.0.0.1,
# starting (and on a bare Debian machine installing) them when they are not.
set -euo pipefail

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v pg_ctlcluster >/dev/null || ! command -v redis-server >/dev/null; then
  echo "services: installing PostgreSQL and Redis from Debian packages" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql redis-server >/dev/null
fi

if ! pg_up; then
  echo "services: starting PostgreSQL" >&2
  for v in $(ls /etc/postgresql); do
    as_root pg_ctlcluster --skip-systemctl-redirect "$v" main start || true
  done
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
pg_up || { echo "services: PostgreSQL is not answering on 127.0.0.1:5432" >&2; exit 1; }

# The tests connect as postgres to database "test" (TRADEWIND_TEST_POSTGRES overrides).
if [ -z "${TRADEWIND_TEST_POSTGRES:-}" ]; then
  if ! psql "postgres://postgres@127.0.0.1:5432/test?sslmode=disable" -qtAc 'select 1' >/dev/null 2>&1; then
    echo "services: creating database test" >&2
    as_root su postgres -c "psql -qc 'CREATE DATABASE test'" >/dev/null 2>&1 || true
    as_root su postgres -c "psql -qc \"ALTER USER postgres PASSWORD NULL\"" >/dev/null 2>&1 || true
  fi
fi

if ! redis_up; then
  echo "services: starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 20); do redis_up && break; sleep 0.5; done
fi
redis_up || { echo "services: Redis is not answering on 127.0.0.1:6379" >&2; exit 1; }
