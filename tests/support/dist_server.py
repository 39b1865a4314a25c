#!/usr/bin/env python3
"""Static HTTP server for the toolchain fixture (toolchain_dist.py). Binds
127.0.0.1 on an ephemeral port and prints "PORT <n>" on stdout once
listening. Usage: dist_server.py ROOT

Like archive_server.py (GET and HEAD, Range: bytes=N-, quiet), plus:
  - a file holding @@BASE@@ is served with http://127.0.0.1:PORT in its place
    (npm packuments name their tarballs by absolute URL);
  - a directory is served as its index.json, else its index.html (an npm
    packument lives at NAME/index.json beside NAME/-/; Go's listing is
    go/dl/index.html), never as a listing; 404 without either;
  - /truncate/REST serves REST with its full Content-Length but only the
    first half of the body, then closes the connection;
  - /status/CODE/REST answers HTTP status CODE;
  - paths are percent-decoded (%2B finds '+'; a literal '+' stays '+') and
    the query string is ignored (go/dl/?mode=json&include=all);
  - each request's target, as sent, is appended to ROOT/requests.log (one
    line each, written before the answer) so tests can count requests."""
import http.server
import mimetypes
import os
import re
import sys
import threading
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    root = "."
    log_lock = threading.Lock()

    def log_message(self, *args):
        pass

    def log_request_path(self):
        with self.log_lock, open(os.path.join(self.root, "requests.log"), "a") as log:
            log.write(self.path.replace("\n", "%0A") + "\n")
            log.flush()

    def answer(self, code, body=b"", content_type="text/plain", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def resolve(self, path):
        """The file under root that a decoded URL path names, or None."""
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if ".." in parts or any("\0" in p for p in parts):
            return None
        full = os.path.join(self.root, *parts)
        if os.path.isdir(full):
            for index in ("index.json", "index.html"):
                if os.path.isfile(os.path.join(full, index)):
                    return os.path.join(full, index)
            return None
        return full if os.path.isfile(full) else None

    def do_GET(self):
        self.log_request_path()
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        truncate = False
        m = re.fullmatch(r"/status/(\d{3})(/.*)?", path)
        if m:
            code = int(m.group(1))
            return self.answer(code, f"status {code}\n".encode())
        if path.startswith("/truncate/"):
            truncate, path = True, path[len("/truncate"):]
        file = self.resolve(path)
        if file is None:
            return self.answer(404, b"not found\n")
        with open(file, "rb") as f:
            body = f.read()
        if b"@@BASE@@" in body:
            body = body.replace(b"@@BASE@@", f"http://127.0.0.1:{self.server.server_address[1]}".encode())
        content_type, encoding = mimetypes.guess_type(file)
        if encoding or not content_type:  # .tar.xz, .tgz: bytes, not a tar to render
            content_type = "application/octet-stream"
        if body[:1] in (b"[", b"{"):
            content_type = "application/json"
        code, extra = 200, []
        rng = self.headers.get("Range")
        if rng:
            m = re.fullmatch(r"bytes=(\d+)-", rng.strip())
            if not m or int(m.group(1)) >= len(body):
                return self.answer(416, b"", extra=[("Content-Range", f"bytes */{len(body)}")])
            start = int(m.group(1))
            code, extra = 206, [("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")]
            body = body[start:]
        if not truncate:
            return self.answer(code, body, content_type, extra)
        # The full length announced, half of it sent, the connection closed.
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
        self.close_connection = True

    do_HEAD = do_GET


def main():
    Handler.root = os.path.abspath(sys.argv[1])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
