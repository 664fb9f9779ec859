#!/bin/sh
# A misbehaving stdio MCP server for the lifecycle tests: MODE says how it
# fails. The client's first request (initialize) always has id 1.
#
#   exit-before-read       exits with status 3 before reading anything
#   exit-after-initialize  answers initialize, then exits with status 0
#   exit-mid-line          writes half a response line, then exits with status 0
#   close-stdout           answers initialize, closes its stdout, keeps running
#   close-stdin            answers initialize, reads the initialized notification,
#                          closes its stdin, keeps running (the client's next
#                          write fails with EPIPE)
#   serve                  answers initialize, then every request: tools/list
#                          with no tools, anything else with an empty result
#   answer-late MS         like serve, each answer MS milliseconds late
#   silent                 answers initialize, then reads everything and answers
#                          nothing (a server that hangs)
#   deaf                   answers initialize, reads everything, answers nothing,
#                          ignores SIGTERM and outlives its stdin
#   deaf-flooding          answers initialize, then writes notifications as fast
#                          as it can, ignoring SIGTERM
mode=$1
init='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"faulty","version":"0"}}}'
answer_initialize() { read -r _line; printf '%s\n' "$init"; }
# Answers each request read from stdin after $1 seconds (notifications have
# no id and get no answer).
answer_requests() {
  while read -r line; do
    case "$line" in *'"id":'*) ;; *) continue ;; esac
    id=${line#*\"id\":}; id=${id%%[,\}]*}
    [ "$1" = 0 ] || sleep "$1"
    case "$line" in
      *'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id" ;;
      *) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    esac
  done
}
case "$mode" in
  exit-before-read) exit 3 ;;
  exit-after-initialize) answer_initialize; exit 0 ;;
  exit-mid-line) read -r _line; printf '{"jsonrpc":"2.0","id":1,"res'; exit 0 ;;
  close-stdout) answer_initialize; exec >&-; exec sleep 600 ;;
  close-stdin) answer_initialize; read -r _line; exec <&-; exec sleep 600 ;;
  serve) answer_initialize; answer_requests 0 ;;
  silent) answer_initialize; exec cat >/dev/null ;;
  deaf) trap '' TERM; answer_initialize; cat >/dev/null; exec sleep 600 ;;
  deaf-flooding) trap '' TERM; answer_initialize; exec yes '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}' ;;
  answer-late) answer_initialize; answer_requests "$(( $2 / 1000 )).$(printf '%03d' $(( $2 % 1000 )))" ;;
  *) echo "faulty_server.sh: unknown mode $mode" >&2; exit 2 ;;
esac
