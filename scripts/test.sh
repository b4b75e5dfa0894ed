#!/usr/bin/env bash
# The whole check: format, lint and types with Deno's toolchain, the layers
# (dependency-cruiser), then the test suite under Node, Deno and Bun (all three
# from devDependencies). Needs no database: without DATABASE_URL the Postgres
# tests use an embedded PGlite and those that need a real server skip;
# scripts/test_postgres.sh runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

step() { printf '\n== %s\n' "$*"; }
source scripts/ensure_optional_deps.sh
# The Python of the FastAPI differential and of the Python clients' test.
source scripts/ensure_python_env.sh

step "deno fmt --check"
deno fmt --check
step "deno lint"
deno lint
step "deno check"
deno check mod.ts src/ server/ postgres/ mock/ test/ bench/
step "deno check: the core against the DOM and ES libraries alone (no Deno, Node or Bun types)"
deno check --config test/core_tsconfig.json mod.ts src/
step "dependency-cruiser: no cycle, layers only import downwards (layers.json)"
npm run --silent check:layers
step "deno doc --lint"
deno doc --lint mod.ts mock/mod.ts mock/msw.ts postgres/mod.ts server/mod.ts server/worker.ts

step "deno test --doc (the JSDoc examples)"
deno test --doc --allow-all --quiet mod.ts src/ server/ postgres/ mock/

step "node --test ($(node --version))"
node --test --test-concurrency=1 'test/**/*_test.ts'
step "deno test ($(deno --version | head -1))"
deno test --allow-all --quiet test/
step "bun test (bun $(bun --version))"
bun test --timeout 60000 ./test/

step "deno publish --dry-run (JSR package)"
deno publish --dry-run --allow-dirty --quiet
step "deploy targets: ./server under deno serve, bun and node, the Worker under workerd, a fresh machine"
node --test --test-concurrency=1 --test-timeout=300000 test/deploy/server_entry.ts \
  test/deploy/workerd.ts test/deploy/fresh_machine.ts

# One npm pack for the tests that install the package.
pack_dir="$(mktemp -d)"
trap 'rm -rf "$pack_dir"' EXIT
npm pack --silent --pack-destination "$pack_dir" >/dev/null
CALLFLOW_TARBALL="$(ls "$pack_dir"/*.tgz)"
export CALLFLOW_TARBALL
step "packed npm package in a fresh project: types, MSW 2 and 3, npx/bunx/deno bin, serve, old Node refused"
node --test --test-timeout=300000 test/consumer/packed_package.ts
step "README's Deploying snippets as written: every launcher stops on SIGTERM, wrangler dev, edge-runtime"
node --test --test-timeout=300000 test/deploy/readme_deploy.ts
step "mock under MSW setupWorker in headless Chromium"
node --test --test-timeout=120000 test/browser/service_worker.ts
step "OpenAPI document through Spectral and Redocly; clients from openapi-typescript, @hey-api/openapi-ts, orval"
node --test --test-concurrency=1 --test-timeout=300000 test/consumer/openapi_lint.ts test/consumer/generated_clients.ts
step "Portman contract and variation tests run by Newman, against npm start and the mock"
node --test --test-concurrency=1 --test-timeout=120000 test/consumer/portman_newman.ts
step "ordinary clients (requests, httpx, axios, ky, fetch, curl --json) against the API and the mock, on each runtime"
node --test --test-timeout=120000 test/consumer/ordinary_clients.ts
deno test --allow-all --quiet test/consumer/ordinary_clients.ts
bun test --timeout 120000 ./test/consumer/ordinary_clients.ts
step "the mock as one executable (bun build --compile), driven from Python with no JavaScript runtime on PATH"
node --test --test-timeout=300000 test/consumer/mock_executable.ts
step "the mock's journal.har read by Python's json, and replayed as httpsnippet's curl commands"
node --test --test-timeout=120000 test/consumer/har_consumers.ts
step "the mock's live page at /__mock/ in headless Chromium, on the command and the executable"
node --test --test-timeout=180000 test/browser/mock_page.ts
step "reference page at /docs in headless Chromium, offline"
node --test --test-timeout=180000 test/browser/reference_page.ts
