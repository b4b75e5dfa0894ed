#!/usr/bin/env bash
# The tests that need a real PostgreSQL server, with DATABASE_URL naming one
# (its role needs CREATEDB): `npm test` without it runs them on the embedded
# PGlite or skips them (backends killed, PgBouncer in front, a streaming
# replica, a failover, server-side timeouts, real concurrency). `.ci/run` runs
# this after `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

if [ -z "${DATABASE_URL:-}" ]; then
  echo "Cannot run the PostgreSQL server tests: DATABASE_URL is not set" >&2
  exit 1
fi

step() { printf '\n== %s\n' "$*"; }
source scripts/ensure_optional_deps.sh

tests=(test/postgres_*_test.ts)
step "node --test on PostgreSQL ($(node --version), ${#tests[@]} files)"
node --test --test-concurrency=1 "${tests[@]}"
step "deno test on PostgreSQL ($(deno --version | head -1))"
deno test --allow-all --quiet "${tests[@]}"
step "bun test on PostgreSQL (bun $(bun --version))"
bun test --timeout 120000 "${tests[@]/#/./}"

step "kill test on the packed package with postgres.js from the registry, under Node, Deno and Bun"
node --test --test-timeout=600000 test/consumer/packed_postgres_kill.ts
