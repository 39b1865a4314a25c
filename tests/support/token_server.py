#!/usr/bin/env python3
"""A minimal Docker token server for integration tests (distribution 2.8).

Generates a self-signed EC P-256 certificate (written to DIR/token.crt for the
registry's rootcertbundle) and issues ES256 JWTs with an x5c header for
GET /token?service=&scope=…&scope=…. Basic credentials USER:PASS get every
action they ask for; anonymous requests get pull only; wrong credentials get
401. Each request's scopes are appended to DIR/token.log (one JSON line) so
tests can check what the client asked for. Listens on 127.0.0.1 only and
prints "listening on PORT" once ready. Stdlib plus python3-cryptography.
"""
import argparse
import base64
import datetime
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Issuer:
    def __init__(self, directory, issuer, lifetime):
        self.key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "strata test token issuer")])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                     .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(days=1))
                     .not_valid_after(now + datetime.timedelta(days=2))
                     .sign(self.key, hashes.SHA256()))
        with open(os.path.join(directory, "token.crt"), "wb") as f:
            f.write(self.cert.public_bytes(serialization.Encoding.PEM))
        self.x5c = base64.b64encode(self.cert.public_bytes(serialization.Encoding.DER)).decode()
        self.issuer = issuer
        self.lifetime = lifetime
        self.counter = 0
        self.lock = threading.Lock()

    def token(self, service, subject, access):
        with self.lock:
            self.counter += 1
            jti = str(self.counter)
        now = int(time.time())
        header = {"typ": "JWT", "alg": "ES256", "x5c": [self.x5c]}
        claims = {"iss": self.issuer, "sub": subject, "aud": service, "exp": now + self.lifetime,
                  "nbf": now - 10, "iat": now, "jti": jti, "access": access}
        signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
        der = self.key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def make_handler(issuer, user, password, log_path):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            if url.path != "/token":
                return self.reply(404, {"error": "not found"})
            query = urllib.parse.parse_qs(url.query)
            auth = self.headers.get("Authorization", "")
            subject = ""
            if auth.startswith("Basic "):
                got = base64.b64decode(auth[6:]).decode(errors="replace")
                if got != f"{user}:{password}":
                    return self.reply(401, {"details": "invalid credentials"})
                subject = user
            scopes = query.get("scope", [])
            access = []
            for scope in scopes:
                for one in scope.split(" "):
                    parts = one.split(":")
                    if len(parts) < 3:
                        continue
                    kind, name, actions = parts[0], ":".join(parts[1:-1]), parts[-1].split(",")
                    granted = actions if subject else [a for a in actions if a == "pull"]
                    access.append({"type": kind, "name": name, "actions": granted})
            with open(log_path, "a") as f:
                f.write(json.dumps({"subject": subject, "scopes": scopes}) + "\n")
            service = query.get("service", [""])[0]
            token = issuer.token(service, subject, access)
            issued = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            self.reply(200, {"token": token, "access_token": token, "expires_in": issuer.lifetime,
                             "issued_at": issued})

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--issuer", default="test-issuer")
    ap.add_argument("--user", default="testuser")
    ap.add_argument("--password", default="testpass")
    ap.add_argument("--lifetime", type=int, default=300)
    args = ap.parse_args()
    issuer = Issuer(args.dir, args.issuer, args.lifetime)
    handler = make_handler(issuer, args.user, args.password, os.path.join(args.dir, "token.log"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
