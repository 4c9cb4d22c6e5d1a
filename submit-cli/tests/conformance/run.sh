#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, every scenario of
# `server --suite all`) against `submit-result mcp`, over streamable HTTP with a bearer token
# and over standard input and output:
#
#     submit-cli/tests/conformance/run.sh PATH/TO/submit-result PATH/TO/schema.json
#
# The suite and the Node.js it needs (22 or newer) come from the npm registry into a fresh
# temporary directory; nothing is cached. The suite takes a URL and sends no credentials, so
# with-token.mjs adds the token in front of the HTTP server, and stdio-relay.mjs serves the
# stdio server over HTTP. The scenarios that do not apply to a server of one tool are listed,
# each with its reason, in not-applying.yml (HTTP) and not-applying-stdio.yml; every other one
# must pass, and a listed one that passes fails the run.
set -euo pipefail

binary="$(realpath "$1")"
schema="$(realpath "$2")"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop EXIT

npm install --prefix "$work" --no-audit --no-fund --loglevel=error \
  node@22 @modelcontextprotocol/conformance@0.1.16
cp "$here"/*.mjs "$work/"
node="$work/node_modules/.bin/node"
suite=("$node" "$work/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  server --suite all)

# wait_for FILE SED: the first line of FILE that the sed expression SED prints, waiting up to
# 30 s for it to be written.
wait_for() {
  local line
  for _ in $(seq 300); do
    line="$(sed -n "$2" "$1" | head -n 1)"
    if [ -n "$line" ]; then
      echo "$line"
      return 0
    fi
    sleep 0.1
  done
  echo "conformance: $1 never held what was awaited:" >&2
  cat "$1" >&2
  return 1
}

# run NAME BASELINE URL: the suite against URL; its summary, or everything when it fails.
run() {
  if ! "${suite[@]}" --url "$3" --expected-failures "$2" -o "$work/$1" >"$work/$1.log" 2>&1; then
    cat "$work/$1.log"
    echo "conformance: the suite failed over $1" >&2
    return 1
  fi
  sed -n '/=== SUMMARY ===/,$p' "$work/$1.log"
}

echo "-- over streamable HTTP, with the bearer token"
SUBMIT_RESULT_MCP_TOKEN="conformance-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export SUBMIT_RESULT_MCP_TOKEN
# The suite opens a session for each scenario and ends none: room for all of them.
"$binary" mcp --schema "$schema" --listen 127.0.0.1:0 --max-sessions 64 \
  >"$work/http.out" 2>"$work/http.err" &
pids+=($!)
url="$(wait_for "$work/http.err" 's/^submit-result: serving MCP at //p')"
"$node" "$work/with-token.mjs" "$url" >"$work/proxy.url" &
pids+=($!)
run http "$here/not-applying.yml" "$(wait_for "$work/proxy.url" '/^http/p')"

echo "-- over standard input and output, through the relay"
"$node" "$work/stdio-relay.mjs" "$binary" mcp --schema "$schema" \
  >"$work/relay.url" 2>"$work/relay.err" &
pids+=($!)
run stdio "$here/not-applying-stdio.yml" "$(wait_for "$work/relay.url" '/^http/p')"
