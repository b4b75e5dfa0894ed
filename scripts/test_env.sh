# The environment the test scripts run in (sourced by test.sh, test_quick.sh
# and test_postgres.sh from the project's root): the project's Node, Deno and
# Bun first on PATH, and Node's compile cache in .tmp/ for every Node process
# of the run (each test file's, each server a test starts): a later start of
# the same files reads their stripped TypeScript and compiled code from disk,
# about 0.1 s of CPU a process instead of 0.3 here.
export PATH="$PWD/node_modules/.bin:$PATH"
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/.tmp/node-compile-cache}"
