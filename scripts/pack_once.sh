# Packs the package once for the tests that install it (test/support/
# packed_tarball.ts reads CALLFLOW_TARBALL), before any stage starts: prepack
# rewrites package.json and dist/ while it works. Sourced by scripts/test.sh
# and scripts/test_postgres.sh; the tarball is removed on exit.
printf '\n== npm pack (once, for the tests that install the package)\n'
pack_dir="$(mktemp -d)"
trap 'rm -rf "$pack_dir"' EXIT
npm pack --silent --pack-destination "$pack_dir" >/dev/null
CALLFLOW_TARBALL="$(ls "$pack_dir"/*.tgz)"
export CALLFLOW_TARBALL
