#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for registry integration tests (stdlib only).

    fault_proxy.py --upstream 127.0.0.1:PORT

Listens on two 127.0.0.1 ports and prints "listening on PORT redirect PORT2":
PORT forwards every request to the upstream registry (keeping the client's
Host header, so the registry's Location headers point back at the proxy);
PORT2 plays a storage host that redirected requests land on ("presigned"
URLs), recording whether any request there carried an Authorization header.

Faults are scripted with POST /__fault__/script, a JSON list of rules tried
in order; a rule applies to requests whose method equals "method" (if set)
and whose path contains "path", at most "times" times:
  {"action": "status", "status": 503, "retry_after": "1"}  answer with an error
  {"action": "reset", "bytes": N}     send headers and N body bytes, then RST
  {"action": "truncate", "bytes": N}  send headers and N body bytes, then close
  {"action": "corrupt", "offset": N}  flip one body byte
  {"action": "slow", "seconds": S}    wait S seconds, then forward
  {"action": "stall", "seconds": S}   read the request, answer nothing for S
                                      seconds (at most 30), then close
  {"action": "blackhole", "seconds": S}
                                      read the request's headers only, never
                                      its body, answer nothing for S seconds
                                      (at most 30), then close: a registry
                                      that accepts connections and never
                                      answers (an upload's body backs up)
  {"action": "ignore_range"}          forward without the Range header: the
                                      full body comes back with 200
  {"action": "endless", "content_length": N, "rate": B, "max_bytes": M}
                                      200 with zero bytes until the client
                                      goes away: Content-Length N if given
                                      (else none, close-delimited), at most B
                                      bytes a second if given, M bytes at most
                                      (default 1 GiB) and 60 seconds at most;
                                      the log's "sent" counts what was written
  {"action": "drop_upload"}           read part of the request body, then RST
  {"action": "redirect"}              307 to PORT2 (auth stashed as a URL would)
GET /__fault__/log returns {"redirect_requests": n, "redirect_auth_seen": bool,
"applied": [...]} (each applied rule's method, path, action, and "sent" for
"endless"). Only 127.0.0.1 is ever contacted; every loop is bounded.
"""
import argparse
import http.client
import json
import socket
import struct
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 1 << 30
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-authorization", "proxy-authenticate", "content-length"}


class State:
    def __init__(self, upstream):
        self.upstream = upstream
        self.lock = threading.Lock()
        self.rules = []
        self.applied = []
        self.redirect_requests = 0
        self.redirect_auth_seen = False
        self.stash = {}  # presigned id -> Authorization header value
        self.redirect_port = 0

    def take_rule(self, method, path):
        with self.lock:
            for rule in self.rules:
                if rule.get("times", 1) <= 0:
                    continue
                if rule.get("method") and rule["method"] != method:
                    continue
                if rule.get("path", "") not in path:
                    continue
                rule["times"] = rule.get("times", 1) - 1
                entry = {"method": method, "path": path, "action": rule["action"]}
                self.applied.append(entry)
                return dict(rule, applied=entry)
        return None


def read_request_body(handler):
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        body = bytearray()
        for _ in range(1 << 20):  # bounded number of chunks
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()
                break
            if len(body) + size > MAX_BODY:
                raise ValueError("request body too large")
            body += handler.rfile.read(size)
            handler.rfile.readline()
        return bytes(body)
    length = int(handler.headers.get("Content-Length", "0") or "0")
    if length > MAX_BODY:
        raise ValueError("request body too large")
    return handler.rfile.read(length) if length else b""


def forward(state, handler, body, auth_override=None, drop=()):
    conn = http.client.HTTPConnection(state.upstream, timeout=60)
    headers = {k: v for k, v in handler.headers.items()
               if k.lower() not in HOP_BY_HOP and k.lower() not in drop}
    if auth_override is not None:
        headers["Authorization"] = auth_override
    if body or handler.command in ("PUT", "POST", "PATCH"):
        headers["Content-Length"] = str(len(body))
    conn.request(handler.command, handler.path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read() if handler.command != "HEAD" else b""
    out_headers = [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP_BY_HOP]
    length = resp.getheader("Content-Length")
    conn.close()
    return resp.status, out_headers, data, length


def rst_close(handler):
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.close_connection = True
    handler.connection.close()


def make_handler(state, is_redirect_target):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send_all(self, status, headers, data, length=None):
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", length if (self.command == "HEAD" and length) else str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def control(self):
            if self.path == "/__fault__/script" and self.command == "POST":
                rules = json.loads(read_request_body(self) or b"[]")
                with state.lock:
                    state.rules = rules
                return self.send_all(200, [("Content-Type", "application/json")], b"{}")
            if self.path == "/__fault__/log":
                with state.lock:
                    log = {"redirect_requests": state.redirect_requests,
                           "redirect_auth_seen": state.redirect_auth_seen, "applied": state.applied}
                return self.send_all(200, [("Content-Type", "application/json")], json.dumps(log).encode())
            return self.send_all(404, [], b"")

        def handle_any(self):
            if self.path.startswith("/__fault__/"):
                return self.control()
            if is_redirect_target:
                return self.handle_redirected()
            rule = state.take_rule(self.command, self.path)
            action = rule["action"] if rule else None
            if action == "blackhole":
                time.sleep(min(float(rule.get("seconds", 30)), 30))
                self.close_connection = True
                return
            if action == "drop_upload":
                self.rfile.read(min(int(self.headers.get("Content-Length", "0") or "0") // 2, 1 << 16))
                return rst_close(self)
            body = read_request_body(self)
            if action == "status":
                headers = [("Content-Type", "application/json")]
                if rule.get("retry_after"):
                    headers.append(("Retry-After", str(rule["retry_after"])))
                err = json.dumps({"errors": [{"code": "UNAVAILABLE", "message": "injected fault"}]}).encode()
                return self.send_all(int(rule.get("status", 503)), headers, err)
            if action == "redirect":
                ident = uuid.uuid4().hex
                with state.lock:
                    state.stash[ident] = self.headers.get("Authorization")
                location = f"http://127.0.0.1:{state.redirect_port}/presigned/{ident}{self.path}"
                return self.send_all(307, [("Location", location)], b"")
            if action == "slow":
                time.sleep(min(float(rule.get("seconds", 1)), 30))
            if action == "stall":
                time.sleep(min(float(rule.get("seconds", 30)), 30))
                self.close_connection = True
                return
            if action == "endless":
                return self.send_endless(rule)
            drop = ("range",) if action == "ignore_range" else ()
            status, headers, data, length = forward(state, self, body, drop=drop)
            if action == "corrupt" and data:
                i = min(int(rule.get("offset", 0)), len(data) - 1)
                data = data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]
            if action in ("reset", "truncate") and self.command != "HEAD":
                n = min(int(rule.get("bytes", len(data) // 2)), len(data))
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[:n])
                self.wfile.flush()
                if action == "reset":
                    return rst_close(self)
                self.close_connection = True
                return
            self.send_all(status, headers, data, length)

        def send_endless(self, rule):
            limit = min(int(rule.get("max_bytes", 1 << 30)), 1 << 32)
            length = rule.get("content_length")
            if length is not None:
                limit = min(limit, int(length))
            rate = float(rule.get("rate", 0))
            self.send_response(int(rule.get("status", 200)))
            self.send_header("Content-Type", rule.get("content_type", "application/octet-stream"))
            if length is not None:
                self.send_header("Content-Length", str(int(length)))
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = bytes(64 << 10)
            sent = 0
            started = time.monotonic()
            try:
                while sent < limit and time.monotonic() - started < 60:
                    n = min(len(chunk), limit - sent)
                    if rate > 0:
                        n = min(n, max(1, int(rate / 10)))
                    self.wfile.write(chunk[:n])
                    sent += n
                    with state.lock:
                        rule["applied"]["sent"] = sent
                    if rate > 0:
                        time.sleep(n / rate)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, socket.timeout):
                pass
            self.close_connection = True

        def handle_redirected(self):
            with state.lock:
                state.redirect_requests += 1
                if self.headers.get("Authorization"):
                    state.redirect_auth_seen = True
            parts = self.path.split("/", 3)  # "", "presigned", id, rest
            if len(parts) < 4 or parts[1] != "presigned":
                return self.send_all(404, [], b"")
            with state.lock:
                auth = state.stash.get(parts[2])
            body = read_request_body(self)
            self.path = "/" + parts[3]
            status, headers, data, length = forward(state, self, body, auth_override=auth)
            self.send_all(status, headers, data, length)

        do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = do_DELETE = handle_any

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True, help="127.0.0.1:PORT of the registry")
    args = ap.parse_args()
    if not args.upstream.startswith("127.0.0.1:"):
        print("fault_proxy: the upstream must be on 127.0.0.1", file=sys.stderr)
        return 2
    state = State(args.upstream)
    main_server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state, False))
    redirect_server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state, True))
    state.redirect_port = redirect_server.server_address[1]
    threading.Thread(target=redirect_server.serve_forever, daemon=True).start()
    print(f"listening on {main_server.server_address[1]} redirect {state.redirect_port}", flush=True)
    try:
        main_server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
