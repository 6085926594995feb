#!/usr/bin/env python3
"""A git smart-HTTP server for tests: `git http-backend` behind HTTP basic authentication.

Usage: git-http-server.py PROJECT_ROOT. Reads the one accepted `user:password` from standard input
(never from argv or the environment), listens on 127.0.0.1 on a free port, prints the port, and serves
until killed. Every request without the right credentials gets 401 with a Basic challenge; an empty
line instead of a credential serves everyone (the sync tests: sync's own checks are what they test)."""
import base64, http.server, os, subprocess, sys

root = sys.argv[1]
credential = sys.stdin.readline().rstrip("\n")
user = credential.partition(":")[0]
expected = "Basic " + base64.b64encode(credential.encode()).decode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def serve(self):
        if credential and self.headers.get("Authorization") != expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="test"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": root, "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            "REMOTE_USER": user, "REMOTE_ADDR": "127.0.0.1",
        }
        result = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=30)
        head, _, payload = result.stdout.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
