#!/usr/bin/env bash
# The edit-test loop: format, lint and types with Deno's toolchain, the
# layers (dependency-cruiser), then the unit tests under Node alone. No
# packing, no browser, no deploy targets, no PostgreSQL and none of the tests
# that start servers as child processes or wait on real deadlines; `npm test`
# (scripts/test.sh) runs all of that.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test_env.sh

step() { printf '\n== %s\n' "$*"; }
source scripts/ensure_optional_deps.sh

# The folders that exist (the layout may add server/ and postgres/).
sources=()
for path in mod.ts src server postgres mock test bench; do
  [[ -e "$path" ]] && sources+=("$path")
done

# Test files left to `npm test`: PostgreSQL, child processes, real timeouts.
slow='^test/(postgres_.*|slow_clients|server_cli|serve_command|cli|mock_server|readme_mock_examples|docs_examples|http_server|fastapi_differential|no_secret_output|short_tokens|mock_rebinding|export_fairness|contract_property)_test\.ts$'
tests=()
for file in test/*_test.ts; do
  [[ "$file" =~ $slow ]] || tests+=("$file")
done

step "deno fmt --check"
deno fmt --check
step "deno lint"
deno lint
step "deno check"
deno check "${sources[@]}"
step "dependency-cruiser: no cycle, layers only import downwards (layers.json)"
npm run --silent check:layers
step "node --test ($(node --version), ${#tests[@]} files)"
node --test --test-concurrency="${TEST_JOBS:-3}" "${tests[@]}"
