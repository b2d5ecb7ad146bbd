#!/usr/bin/env python3
"""An https git server on 127.0.0.1 for specs: 'git http-backend' behind TLS and
HTTP basic auth. Usage: https-git-server.py PORT ROOT CERT KEY USER TOKEN
(CERT "-" serves plain http).
Stops by itself after 10 minutes."""
import base64, http.server, os, ssl, subprocess, sys, threading

port, root, cert, key, user, token = int(sys.argv[1]), *sys.argv[2:7]
expected = "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()

class Handler(http.server.BaseHTTPRequestHandler):
    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def serve(self, method):
        if self.headers.get("Authorization") != expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="docket"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        body = self.body()
        env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path, REQUEST_METHOD=method,
                   QUERY_STRING=query, CONTENT_TYPE=self.headers.get("Content-Type", ""), CONTENT_LENGTH=str(len(body)),
                   REMOTE_USER=user, REMOTE_ADDR="127.0.0.1", GIT_HTTP_MAX_REQUEST_BUFFER="100M")
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        separator = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
        head, _, payload = out.partition(separator)
        status, headers = 200, []
        for line in head.decode().replace("\r\n", "\n").split("\n"):
            name, _, value = line.partition(": ")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.serve("GET")

    def do_POST(self):
        self.serve("POST")

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
if cert != "-":
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Timer(600, server.shutdown).start()
server.serve_forever()
