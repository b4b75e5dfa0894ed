#!/usr/bin/env bash
# The whole check: format, lint and types with Deno's toolchain, the layers
# (dependency-cruiser), the test suite under Node, Deno and Bun (all three from devDependencies), the deploy targets,
# the packed package in fresh projects and the browser tests. Needs no
# database: without DATABASE_URL the Postgres tests use an embedded PGlite and
# those that need a real server skip; scripts/test_postgres.sh runs them.
#
# Most of the suite waits (real deadlines, child servers starting, installs),
# so the stages of one group run side by side (scripts/stages.sh): each line
# below is one stage, `stage GROUP "title" command...`; a new stage is one more
# line. Each stage's output is printed whole, in this order; any failing stage
# fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test_env.sh

source scripts/stages.sh
source scripts/ensure_optional_deps.sh
# The Python of the FastAPI differential and of the Python clients' test is
# made while the package is packed (neither reads what the other writes);
# sourced once more afterwards, it only exports FASTAPI_PYTHON.
(source scripts/ensure_python_env.sh) &
python_env_made=$!
# Without DATABASE_URL the Postgres tests run on an embedded PGlite: its fresh
# data directory is made once here (.tmp/pglite/), not by each file at once.
if [ -z "${DATABASE_URL:-}" ]; then
  node --input-type=module \
    -e 'await (await import("./test/support/postgres.ts")).preparePglite()' &
  pglite_prepared=$!
fi
source scripts/pack_once.sh
wait "$python_env_made"
[ -z "${pglite_prepared:-}" ] || wait "$pglite_prepared"
source scripts/ensure_python_env.sh

# Test files each runtime runs at once (each file its own process or worker).
jobs="${TEST_JOBS:-3}"
# The files whose servers are timed against signals, stalls and rates, and
# the FastAPI differential (a CPU-bound run with a 90 s bound): on a machine
# loaded by the other suites their deadlines would be missed, so they run
# afterwards, one file at a time under each runtime.
timed='^test/(graceful_shutdown|rolling_restart|export_fairness|export_stall|slow_clients|postgres_faults|fastapi_differential)_test\.ts$'
shopt -s globstar
tests=() timed_tests=()
for file in test/**/*_test.ts; do
  if [[ "$file" =~ $timed ]]; then timed_tests+=("$file"); else tests+=("$file"); fi
done

# deno publish --dry-run checks the package and its public API's slow types;
# the types themselves deno check has checked just before.
stage 1 "deno fmt --check, deno lint, deno check (all, then the core on DOM and ES libraries alone), dependency-cruiser (no cycle, layers only import downwards: layers.json), deno doc --lint, deno publish --dry-run" \
  bash -c 'set -e
    deno fmt --check
    deno lint
    deno check mod.ts src/ server/ postgres/ mock/ test/ bench/
    deno check --config test/core_tsconfig.json mod.ts src/
    npm run --silent check:layers
    deno doc --lint mod.ts mock/mod.ts mock/msw.ts postgres/mod.ts server/mod.ts server/worker.ts
    deno publish --dry-run --allow-dirty --quiet --no-check'
stage 1 "deno test --doc (the JSDoc examples)" \
  deno test --doc --allow-all --quiet mod.ts src/ server/ postgres/ mock/
stage 1 "node --test ($(node --version), ${#tests[@]} files)" \
  node --test --test-concurrency="$jobs" "${tests[@]}"
# deno check above type-checks test/ already: deno test does not again.
stage 1 "deno test ($(deno --version | head -1), ${#tests[@]} files)" \
  env DENO_JOBS="$jobs" deno test --allow-all --quiet --no-check --parallel \
  "${tests[@]}"
stage 1 "bun test (bun $(bun --version), ${#tests[@]} files)" \
  bun test --timeout 60000 --parallel="$jobs" "${tests[@]/#/./}"

stage 2 "node --test, the timed files ($(node --version), ${#timed_tests[@]} files)" \
  node --test --test-concurrency=1 "${timed_tests[@]}"
stage 2 "deno test, the timed files (${#timed_tests[@]} files)" \
  deno test --allow-all --quiet --no-check "${timed_tests[@]}"
stage 2 "bun test, the timed files (${#timed_tests[@]} files)" \
  bun test --timeout 60000 "${timed_tests[@]/#/./}"

stage 3 "deploy targets: ./server under deno serve, bun and node, the Worker under workerd, a fresh machine" \
  node --test --test-concurrency=3 --test-timeout=300000 \
  test/deploy/server_entry.ts test/deploy/workerd.ts test/deploy/fresh_machine.ts
stage 3 "packed npm package in a fresh project: types, MSW 2 and 3, npx/bunx/deno bin, serve, old Node refused" \
  node --test --test-timeout=300000 test/consumer/packed_package.ts
stage 3 "README's Deploying snippets as written: every launcher stops on SIGTERM, wrangler dev, edge-runtime" \
  node --test --test-timeout=300000 test/deploy/readme_deploy.ts
stage 3 "mock under MSW setupWorker in headless Chromium; reference page at /docs in headless Chromium, offline" \
  node --test --test-concurrency=2 --test-timeout=180000 \
  test/browser/service_worker.ts test/browser/reference_page.ts
stage 3 "OpenAPI document through Spectral and Redocly; clients from openapi-typescript, @hey-api/openapi-ts, orval" \
  node --test --test-concurrency=2 --test-timeout=300000 \
  test/consumer/openapi_lint.ts test/consumer/generated_clients.ts
stage 3 "Portman contract and variation tests run by Newman, against npm start and the mock" \
  node --test --test-timeout=300000 test/consumer/portman_newman.ts
stage 3 "the mock as one executable (bun build --compile), driven from Python with no JavaScript runtime on PATH" \
  node --test --test-timeout=300000 test/consumer/mock_executable.ts

stage 3 "ordinary clients (requests, httpx, axios, ky, fetch, curl --json) against the API and the mock, under Node" \
  node --test --test-timeout=120000 test/consumer/ordinary_clients.ts
stage 3 "ordinary clients, under Deno" \
  deno test --allow-all --quiet test/consumer/ordinary_clients.ts
stage 3 "ordinary clients, under Bun" \
  bun test --timeout 120000 ./test/consumer/ordinary_clients.ts
stage 3 "the mock's journal.har read by Python's json, and replayed as httpsnippet's curl commands" \
  node --test --test-timeout=300000 test/consumer/har_consumers.ts
stage 3 "the mock's live page at /__mock/ in headless Chromium, on the command and the executable" \
  node --test --test-timeout=180000 test/browser/mock_page.ts

run_stages
