#!/usr/bin/env bash
# npm on a system Node older than 22.15 skips, silently, the optional
# OpenTelemetry SDK (its engines need 22.15) that the telemetry tests import.
# Installs once more under the project's Node 24 when it is missing. Sourced by
# test.sh and test_quick.sh, with node_modules/.bin first on PATH.
if [ ! -d node_modules/@opentelemetry/sdk-trace ]; then
  printf '\n== npm install under node %s: the optional OpenTelemetry SDK\n' \
    "$(node --version)"
  npm install --no-audit --no-fund
fi
