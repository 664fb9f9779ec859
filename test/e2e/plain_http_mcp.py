"""A minimal MCP server over plain-HTTP Streamable HTTP, for tests that reach
it at an address off the loopback (inside a network namespace the test makes).

Usage: plain_http_mcp.py HOST PORT MODE, MODE `open` (answers every request)
or `challenge` (answers 401 with a Bearer challenge). Every request's
Authorization header, if any, is appended to the file named by
$PLAIN_HTTP_MCP_LOG (one line each, `-` for none)."""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST, PORT, MODE = sys.argv[1], int(sys.argv[2]), sys.argv[3]
LOG = os.environ.get("PLAIN_HTTP_MCP_LOG")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(405)

    def do_DELETE(self):
        self.reply(200)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if LOG:
            with open(LOG, "a") as log:
                log.write((self.headers.get("authorization") or "-") + "\n")
        if MODE == "challenge":
            self.reply(401, headers=[("www-authenticate", 'Bearer error="invalid_token"')])
            return
        message = json.loads(body)
        if "id" not in message:
            self.reply(202)
            return
        if message.get("method") == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "plain", "version": "1"}}
        elif message.get("method") == "tools/list":
            result = {"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}
        else:
            result = {}
        answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        self.reply(200, answer, [("content-type", "application/json")])


ThreadingHTTPServer((HOST, PORT), Handler).serve_forever()
