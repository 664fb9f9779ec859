#!/bin/sh
# A misbehaving stdio MCP server for the lifecycle tests: MODE says how it
# fails. The client's first request (initialize) always has id 1.
#
#   exit-before-read       exits with status 3 before reading anything
#   exit-after-initialize  answers initialize, then exits with status 0
#   exit-mid-line          writes half a response line, then exits with status 0
#   close-stdout           answers initialize, closes its stdout, keeps running
#   close-stdin            answers initialize, closes its stdin, keeps running
#                          (the client's next write fails with EPIPE)
#   answer-late MS         answers initialize, then answers every request after
#                          MS milliseconds (a ping-shaped empty result)
mode=$1
init='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"faulty","version":"0"}}}'
answer_initialize() { read -r _line; printf '%s\n' "$init"; }
case "$mode" in
  exit-before-read) exit 3 ;;
  exit-after-initialize) answer_initialize; exit 0 ;;
  exit-mid-line) read -r _line; printf '{"jsonrpc":"2.0","id":1,"res'; exit 0 ;;
  close-stdout) answer_initialize; exec >&-; exec sleep 600 ;;
  close-stdin) answer_initialize; exec <&-; exec sleep 600 ;;
  answer-late)
    delay=$(( $2 / 1000 )).$(printf '%03d' $(( $2 % 1000 )))
    answer_initialize
    while read -r line; do
      id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
      [ -n "$id" ] || continue
      sleep "$delay"
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
    done ;;
  *) echo "faulty_server.sh: unknown mode $mode" >&2; exit 2 ;;
esac
