#!/usr/bin/env python3
"""Small hostile servers for the security tier, loopback only, ephemeral ports.

  servers.py tags FILE      a registry answering /v2/ and /v2/REPO/tags/list with the
                            tags in FILE (one per line); everything else 404
  servers.py blackhole      accepts connections and never answers
  servers.py count          answers every request 404 and logs its path (a
                            listener that must see no request)

Each prints "listening on 127.0.0.1:PORT" once bound, then serves until killed;
request paths go to stderr ("request PATH"), one line each.
"""
import http.server
import json
import socket
import sys
import threading
import time


def listening(port):
    print(f"listening on 127.0.0.1:{port}", flush=True)


class Quiet(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, code, body=b"", ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Docker-Distribution-API-Version", "registry/2.0")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def serve_tags(path):
    with open(path, encoding="utf-8") as f:
        tags = [line.rstrip("\n") for line in f if line.rstrip("\n")]

    class Handler(Quiet):
        def do_GET(self):
            print("request " + self.path[:200], file=sys.stderr, flush=True)
            p = self.path.split("?", 1)[0]
            if p == "/v2/":
                self.send(200, b"{}")
            elif p.startswith("/v2/") and p.endswith("/tags/list"):
                name = p[len("/v2/"):-len("/tags/list")]
                self.send(200, json.dumps({"name": name, "tags": tags}).encode())
            else:
                self.send(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN","message":"unknown"}]}')

        do_HEAD = do_GET

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    listening(srv.server_address[1])
    srv.serve_forever()


def serve_count():
    class Handler(Quiet):
        def any(self):
            print("request " + self.command + " " + self.path[:200], file=sys.stderr, flush=True)
            self.send(404, b"not here\n", "text/plain")

        do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = any

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    listening(srv.server_address[1])
    srv.serve_forever()


def serve_blackhole():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    listening(s.getsockname()[1])
    held = []
    while True:
        c, _ = s.accept()
        print("request (connection accepted, never answered)", file=sys.stderr, flush=True)
        held.append(c)  # kept open, never read from or written to


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "tags":
        serve_tags(sys.argv[2])
    elif mode == "blackhole":
        serve_blackhole()
    elif mode == "count":
        serve_count()
    else:
        sys.exit(__doc__)
