#!/usr/bin/env bash
# The tests that need a real PostgreSQL server, with DATABASE_URL naming one
# (its role needs CREATEDB): `npm test` without it runs them on the embedded
# PGlite or skips them (backends killed, PgBouncer in front, a streaming
# replica, a failover, server-side timeouts, real concurrency). `.ci/run` runs
# this after `npm test`. Each test file makes its own database (and its own
# clusters, on ports of test/support/port_range.ts), so the stages run side by
# side (scripts/stages.sh; a new stage is one more line).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test_env.sh

if [ -z "${DATABASE_URL:-}" ]; then
  echo "Cannot run the PostgreSQL server tests: DATABASE_URL is not set" >&2
  exit 1
fi

source scripts/stages.sh
source scripts/ensure_optional_deps.sh
source scripts/pack_once.sh

# The failover scenario (two clusters, PgBouncer, a server under load for
# seconds through a failover) runs under one runtime at a time, as a
# stage of its own beside the other files.
failover=test/postgres_failover_test.ts
tests=()
for file in test/postgres_*_test.ts; do
  [[ "$file" == "$failover" ]] || tests+=("$file")
done
jobs="${TEST_JOBS:-2}"

stage 1 "node --test on PostgreSQL ($(node --version), ${#tests[@]} files)" \
  node --test --test-concurrency="$jobs" "${tests[@]}"
stage 1 "deno test on PostgreSQL ($(deno --version | head -1))" \
  env DENO_JOBS="$jobs" deno test --allow-all --quiet --parallel "${tests[@]}"
stage 1 "bun test on PostgreSQL (bun $(bun --version))" \
  bun test --timeout 120000 --parallel="$jobs" "${tests[@]/#/./}"
stage 1 "the failover scenario under Node, then Deno, then Bun" \
  bash -c 'set -e; node --test "$1"; deno test --allow-all --quiet "$1"
    bun test --timeout 120000 "./$1"' failover "$failover"
stage 1 "kill test on the packed package with postgres.js from the registry, under Node, Deno and Bun" \
  node --test --test-timeout=600000 test/consumer/packed_postgres_kill.ts

run_stages
