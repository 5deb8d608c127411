#!/usr/bin/env bash
# Makes sure the servers the integration and end-to-end tiers need are installed and running:
# Postgres (15 or newer), Redis and NATS on their standard local ports, and that Chromium is
# there for the browser tests. Servers already
# running are used as they are; what is missing is installed with apt (Debian) and started.
# Prints the environment the tests should use (TEST_PG_ADMIN_URL) on stdout, `export` lines.
set -euo pipefail

log() { echo "ensure-infra: $*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && exec 3>&- 3<&-; }

apt_install() {
  if ! command -v apt-get >/dev/null; then
    log "cannot install $* here (no apt-get); install them and run again"
    exit 1
  fi
  log "installing $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  # Without recommends: chromium-common's (system-config-printer, upower, ...) pull in CUPS and
  # Samba, and headless Chromium needs only its Depends (it bundles its software renderer).
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# --- Postgres -------------------------------------------------------------------------
if ! port_open 5432; then
  if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    apt_install postgresql postgresql-client
  fi
  # The newest server installed (a newer postgresql-client alone has no bin/postgres).
  version=$(basename "$(dirname "$(dirname "$(ls -d /usr/lib/postgresql/*/bin/postgres | sort -V | tail -1)")")")
  if ! ls /etc/postgresql/"$version"/main >/dev/null 2>&1; then
    as_root pg_createcluster "$version" main >&2
  fi
  log "starting Postgres $version"
  # Exit 2 is "already running": the package's own start (systemd, or its init script in a
  # container) may have started it while installing.
  rc=0
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then as_root pg_ctlcluster "$version" main start >&2; fi
  for _ in $(seq 1 60); do port_open 5432 && break; sleep 0.5; done
fi
command -v psql >/dev/null || apt_install postgresql-client
# Whatever holds 5432 must be Postgres: psql would wait forever on a server that never answers.
export PGCONNECT_TIMEOUT=10
if port_open 5432 && ! pg_isready -q -t 10 -h 127.0.0.1 -p 5432; then
  log "port 5432 is taken by something that is not a Postgres accepting connections; free it or stop it, then run again"
  exit 1
fi
# The tests need an administrator login over TCP: trust (as on CI machines) or a password.
admin_url="${TEST_PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
if ! psql "$admin_url" -Atqc 'select 1' >/dev/null 2>&1; then
  log "setting a password for the local postgres role (TCP logins need one here)"
  as_root runuser -u postgres -- psql -qc "ALTER ROLE postgres PASSWORD 'postgres'" >&2
  admin_url="postgres://postgres:postgres@127.0.0.1:5432/postgres"
  psql "$admin_url" -Atqc 'select 1' >/dev/null
fi
echo "export TEST_PG_ADMIN_URL='$admin_url'"

# --- Redis ----------------------------------------------------------------------------
if ! port_open 6379; then
  command -v redis-server >/dev/null || apt_install redis-server
  log "starting Redis"
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/test.log >&2
  for _ in $(seq 1 40); do port_open 6379 && break; sleep 0.25; done
fi

# --- NATS -----------------------------------------------------------------------------
if ! port_open 4222; then
  command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || apt_install nats-server
  log "starting NATS"
  nats=$(command -v nats-server || echo /usr/sbin/nats-server)
  # As the calling user, without JetStream: the gateway uses core request/reply only (no
  # stream, no consumer), so the server needs no store directory, which a non-root user could
  # not write under /var/lib. Its log goes to that user's own file.
  nohup "$nats" -a 127.0.0.1 -p 4222 >"${TMPDIR:-/tmp}/nats-server-test-$(id -u).log" 2>&1 &
  for _ in $(seq 1 40); do port_open 4222 && break; sleep 0.25; done
fi

# --- Chromium -------------------------------------------------------------------------
# The e2e tier's payer browser (browser payments), driven by playwright-core, which never
# downloads a browser of its own: Debian's package.
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  apt_install chromium fonts-liberation
fi

# --- unzip ----------------------------------------------------------------------------
# tools/scripts/ensure-kubectl.sh unpacks kubectl with it when no kubectl with kustomize v5 is
# on the PATH (the manifest tests); not part of a minimal Debian.
command -v unzip >/dev/null || apt_install unzip

for port in 5432 6379 4222; do
  port_open "$port" || { log "nothing answers on port $port"; exit 1; }
done
log "Postgres, Redis and NATS are up"
