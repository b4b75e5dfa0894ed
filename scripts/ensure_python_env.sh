#!/usr/bin/env bash
# The Python the FastAPI differential and the consumer test of Python clients
# run on: a virtual environment in .tmp/python (git-ignored) with the packages
# of scripts/python_requirements.txt, made on the first run and again when the
# list changes. Sourced by test.sh; exports FASTAPI_PYTHON, unless it is set
# already (then that Python is used as it is). Needs python3 with its venv
# module (Debian: apt-get install python3-venv) and a package index.
if [ -z "${FASTAPI_PYTHON:-}" ]; then
  python_env="$PWD/.tmp/python"
  if ! cmp -s scripts/python_requirements.txt "$python_env/requirements.txt"; then
    printf '\n== python3 -m venv .tmp/python: the packages of scripts/python_requirements.txt\n'
    rm -rf "$python_env"
    python3 -m venv "$python_env" || {
      echo "python3 -m venv failed: install Python's venv module (Debian: apt-get install python3-venv)" >&2
      exit 1
    }
    "$python_env/bin/pip" install --quiet --retries "${PIP_RETRIES:-1}" \
      -r scripts/python_requirements.txt
    cp scripts/python_requirements.txt "$python_env/requirements.txt"
  fi
  export FASTAPI_PYTHON="$python_env/bin/python"
fi
