# Runs a list of stages in groups: the stages of one group side by side, each
# with its output captured, then printed in the order they were declared, the
# groups one after the other. Stops after the first group in which a stage
# failed, naming it, and exits non-zero. Sourced by scripts/test.sh and
# scripts/test_postgres.sh:
#
#   stage 1 "deno lint" deno lint
#   stage 2 "node --test" node --test 'test/**/*_test.ts'
#   run_stages
#
# A stage's command runs in a subshell with its own environment; a stage that
# needs the shell (a pipe, a variable set for it) is `bash -c '...'`.

stage_groups=()
stage_titles=()
stage_commands=()

# Declares a stage: its group (a number, lower first), its title, its command.
stage() {
  local group="$1" title="$2"
  shift 2
  stage_groups+=("$group")
  stage_titles+=("$title")
  stage_commands+=("$(printf '%q ' "$@")")
}

# Runs the declared stages; prints each stage's output, wall time and CPU time
# (of its processes, user and system), then a table of the times, then the
# failing tests of each failed stage again (at most STAGES_TAIL_LINES lines a
# stage, 40 unless set).
run_stages() {
  local logs
  logs="$(mktemp -d)"
  local started=$SECONDS failed=() failed_indexes=() summary=()
  local tail_lines="${STAGES_TAIL_LINES:-40}"
  # deno test's "=> name ... FAILED" and "error:", node --test's "✖" and
  # "not ok", bun test's "(fail)".
  local failure_marks='FAILED|^error:|✖|^not ok|\(fail\)'
  local groups
  groups="$(printf '%s\n' "${stage_groups[@]}" | sort -n -u)"
  local group index
  for group in $groups; do
    local members=() pids=()
    for index in "${!stage_groups[@]}"; do
      [[ "${stage_groups[$index]}" == "$group" ]] || continue
      members+=("$index")
      printf '%s\n' "$SECONDS" >"$logs/$index.start"
      (
        set +e
        eval "${stage_commands[$index]}" >"$logs/$index.log" 2>&1
        status=$?
        printf '%s\n' "$SECONDS" >"$logs/$index.end"
        # The CPU time of the stage's processes (user and system), in seconds.
        times >"$logs/$index.times"
        awk 'NR == 2 {
          split($1, u, /[ms]/); split($2, s, /[ms]/)
          printf "%d\n", u[1] * 60 + u[2] + s[1] * 60 + s[2]
        }' "$logs/$index.times" >"$logs/$index.cpu"
        exit "$status"
      ) &
      pids+=("$!")
    done
    printf '\n==== group %s: %s\n' "$group" "$(for index in "${members[@]}"; do
      printf '[%s] ' "${stage_titles[$index]}"
    done)"
    local position
    for position in "${!members[@]}"; do
      index="${members[$position]}"
      local status=0
      wait "${pids[$position]}" || status=$?
      local seconds=$(($(cat "$logs/$index.end") - $(cat "$logs/$index.start")))
      local cpu
      cpu="$(cat "$logs/$index.cpu")"
      printf '\n== %s (%s s, CPU %s s)\n' "${stage_titles[$index]}" "$seconds" \
        "$cpu"
      cat "$logs/$index.log"
      summary+=("$(printf '%5s s  CPU %5s s  group %s  %s' "$seconds" "$cpu" \
        "$group" "${stage_titles[$index]}")")
      if ((status != 0)); then
        printf '\n!! FAILED (exit %s): %s\n' "$status" "${stage_titles[$index]}"
        failed+=("${stage_titles[$index]}")
        failed_indexes+=("$index")
      fi
    done
    ((${#failed[@]} == 0)) || break
  done
  printf '\n==== stage times (wall %s s in all)\n' "$((SECONDS - started))"
  printf '%s\n' "${summary[@]}"
  if ((${#failed[@]} != 0)); then
    # A CI log is often read from its end: each failed stage's failing tests
    # (as each runner marks them) come again, last.
    for index in "${failed_indexes[@]}"; do
      printf '\n==== failing in: %s\n' "${stage_titles[$index]}"
      sed 's/\x1b\[[0-9;]*m//g' "$logs/$index.log" |
        grep -a -E "$failure_marks" | head -n "$tail_lines" || true
    done
    rm -rf "$logs"
    printf '\nFAILED: %s\n' "${failed[@]}"
    return 1
  fi
  rm -rf "$logs"
}
