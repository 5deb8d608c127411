#!/usr/bin/env bash
# `npm test`: every tier against real servers. Unit; integration (real Postgres, Redis, NATS);
# end-to-end against the distributed profile (each app its own process) and the standalone
# profile (one process, embedded Postgres); then a scan of everything the run logged for card
# numbers, API passwords and credentials, and a scan of everything it left at rest (every
# database and schema, Redis key and standalone data folder it created) for the same and for
# security codes and keys. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

mkdir -p test-artifacts
rm -rf test-artifacts/logs test-artifacts/secrets test-artifacts/screenshots
exec > >(tee test-artifacts/test-run.log) 2>&1

step() { printf '\n=== %s (%ss)\n' "$*" "$SECONDS"; }

step "servers"
# An assignment, not `eval "$(...)"` alone: eval would hide the script's failure from set -e.
infra_env="$(bash tools/scripts/ensure-infra.sh)"
eval "$infra_env"

step "dependencies"
if [ ! -d node_modules ] || ! npm ls --depth=0 >/dev/null 2>&1; then
  # `npm install`, not `npm ci`: see tools/scripts/start-standalone.mjs.
  npm install --no-audit --no-fund
fi

# The tiers record what they create here and keep it for the at-rest scan (libs/testing
# at-rest-scan.ts); whatever happens, it is removed when this script exits. What a killed run
# left is removed first.
export TEST_AT_REST_MANIFEST="$PWD/test-artifacts/at-rest-manifest.txt"
node tools/scripts/scan-at-rest.mjs --cleanup-only
trap 'node tools/scripts/scan-at-rest.mjs --cleanup-only || true' EXIT

# kubectl's built-in kustomize renders k8s/ in the manifest tests (offline).
KUBECTL="$(bash tools/scripts/ensure-kubectl.sh)"
export KUBECTL

step "build, types, lint (module boundaries)"
npm run --silent build
npm run --silent typecheck
npm run --silent lint

step "request field coverage (every spec field has its validator and its edge test)"
npm run --silent fields:coverage

step "unit tests (including the configuration reference, Dockerfile and k8s manifest checks)"
# Two workers: the unit tier is CPU alone (no servers), and one worker, Jest's default on two
# cores, leaves the other core idle.
npx jest --selectProjects unit --ci --maxWorkers=2

step "integration tests"
# One suite at a time, as before, but in a worker that is replaced once a suite leaves it above
# 1 GB: on two cores Jest otherwise runs the tier in its own process, whose heap grew past 3 GB
# over the tier's 99 suites (each suite's modules and test apps are not all freed), near Node's
# 4 GB limit; one run of unit and int together in one process ran out of it.
npx jest --selectProjects int --ci --workerIdleMemoryLimit=1GB

step "end-to-end tests: distributed and standalone profiles, side by side"
# Each profile's tier boots a gateway of its own (its database or data folder, ports, Redis and
# NATS prefixes, state file) and spends most of its time waiting on it, so the two run at once.
# The distributed tier's output streams here as it runs; the standalone tier's is kept apart and
# shown whole once it ends. Each is bounded (25 minutes, about three times its usual length), so a
# tier that hangs fails the run with its output shown instead of running into CI's limit
# (--foreground: a Ctrl-C of `npm test` still reaches it).
e2e_tier() {
  E2E_PROFILE="$1" E2E_SKIP_BUILD=1 timeout --foreground --kill-after=30s 25m npx jest --selectProjects e2e --ci --runInBand
}
e2e_tier standalone >test-artifacts/e2e-standalone.log 2>&1 & standalone_pid=$!
distributed_rc=0 && e2e_tier distributed || distributed_rc=$?
standalone_rc=0 && wait "$standalone_pid" || standalone_rc=$?
printf '\n--- end-to-end tests, standalone profile (run beside the distributed one)\n'
cat test-artifacts/e2e-standalone.log
if [ "$distributed_rc" -ne 0 ] || [ "$standalone_rc" -ne 0 ]; then
  echo "end-to-end tests failed: distributed exit $distributed_rc, standalone exit $standalone_rc (124: timed out)" >&2
  exit 1
fi

step "benchmark smoke: every scenario briefly, both profiles (fails on any error, not on figures)"
# Keeps the harness from rotting; figures come from `npm run bench` (docs/performance.md). Its
# logs go under test-artifacts/ and its data stays for the scans below, like the tiers'.
BENCH_SKIP_BUILD=1 BENCH_LOG_DIR=test-artifacts/logs npm run --silent bench:smoke -- --duration 2

step "log scan"
node tools/scripts/scan-logs.mjs test-artifacts

step "at-rest scan (databases, Redis, standalone data)"
node tools/scripts/scan-at-rest.mjs --cleanup

step "all tiers passed"
