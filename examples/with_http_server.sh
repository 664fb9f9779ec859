#!/bin/sh
# Runs a command against server-everything (installed by `make test`) over
# Streamable HTTP: starts it on a free loopback port, appends its URL to the
# command, runs the command, stops the server and exits with the command's
# status. Example: examples/with_http_server.sh bin/mcp-gen list --url
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT=$port node "$root/test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js" streamableHttp >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
tries=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
  tries=$((tries + 1)); [ "$tries" -lt 100 ] || { echo "with_http_server: server-everything did not listen" >&2; exit 1; }
  sleep 0.1
done
status=0
"$@" "http://127.0.0.1:$port/mcp" || status=$?
exit $status
