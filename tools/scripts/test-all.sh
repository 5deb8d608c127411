#!/usr/bin/env bash
# `npm test`: every tier against real servers. Unit; integration (real Postgres, Redis, NATS);
# end-to-end against the distributed profile (each app its own process) and the standalone
# profile (one process, embedded Postgres); then a scan of everything the run logged for card
# numbers, API passwords and credentials, and for card data and credentials under their keys
# (security codes, expiries, passwords, Authorization headers), and a scan of everything it left
# at rest (every database and schema, Redis key and standalone data folder it created) for the
# same and for security codes and keys. Exits non-zero on the first failure.
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
# Two workers, each with a database and Redis prefix of its own (tools/testing/int-worker-env.ts):
# most suites spend their time waiting on servers and apps they start, and one worker left the
# machine about half idle. Each worker is replaced once a suite leaves it above 1 GB: run in one
# process, the tier's heap grew past 3 GB over its suites (each suite's modules and test apps are
# not all freed), near Node's 4 GB limit.
npx jest --selectProjects int --ci --maxWorkers=2 --workerIdleMemoryLimit=1GB

step "end-to-end tests: distributed and standalone profiles, side by side"
# Each run boots a gateway of its own (its database or data folder, ports, Redis and NATS
# prefixes, state file) and spends most of its time waiting on it, so two run at once, in two
# lanes of about the same length: the distributed profile's infra files (which start and stop
# processes and servers of their own, the longest files), and beside them the standalone
# profile's tier followed by the distributed profile's other files. The first lane's output
# streams here as it runs; the second's is kept apart and shown whole once it ends. Each run is
# bounded (25 minutes, about three times its usual length), so one that hangs fails the run with
# its output shown instead of running into CI's limit (--foreground: a Ctrl-C of `npm test`
# still reaches it).
e2e_run() {
  E2E_PROFILE="$1" E2E_SUITES="$2" E2E_SKIP_BUILD=1 timeout --foreground --kill-after=30s 25m npx jest --selectProjects e2e --ci --runInBand
}
e2e_second_lane() {
  local standalone_rc=0 others_rc=0
  e2e_run standalone '' || standalone_rc=$?
  printf '\n--- end-to-end tests, distributed profile, files other than infra\n'
  e2e_run distributed others || others_rc=$?
  echo "standalone exit $standalone_rc, distributed (others) exit $others_rc"
  [ "$standalone_rc" -eq 0 ] && [ "$others_rc" -eq 0 ]
}
e2e_second_lane >test-artifacts/e2e-second-lane.log 2>&1 & second_lane_pid=$!
infra_rc=0 && e2e_run distributed infra || infra_rc=$?
second_lane_rc=0 && wait "$second_lane_pid" || second_lane_rc=$?
printf '\n--- end-to-end tests, standalone profile, then the distributed profile without infra files (run beside the above)\n'
cat test-artifacts/e2e-second-lane.log
if [ "$infra_rc" -ne 0 ] || [ "$second_lane_rc" -ne 0 ]; then
  echo "end-to-end tests failed: distributed infra exit $infra_rc (124: timed out), second lane exit $second_lane_rc (its last line above says which)" >&2
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
