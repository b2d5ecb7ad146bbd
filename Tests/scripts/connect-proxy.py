#!/usr/bin/env python3
"""An http proxy on 127.0.0.1 for specs: takes CONNECT host:port, appends the
target to LOG, and relays bytes both ways. Usage: connect-proxy.py PORT LOG.
Stops by itself after 10 minutes."""
import socket, sys, threading

port, log = int(sys.argv[1]), sys.argv[2]

def relay(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

def handle(client):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(4096)
        if not chunk:
            client.close()
            return
        head += chunk
    line = head.split(b"\r\n")[0].decode()
    method, target, _ = line.split(" ", 2)
    with open(log, "a") as f:
        f.write(f"{method} {target}\n")
    if method != "CONNECT":
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        client.close()
        return
    host, _, p = target.rpartition(":")
    upstream = socket.create_connection((host, int(p)))
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    threading.Thread(target=relay, args=(client, upstream), daemon=True).start()
    relay(upstream, client)

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(16)
threading.Timer(600, lambda: __import__("os")._exit(0)).start()
while True:
    conn, _ = server.accept()
    threading.Thread(target=handle, args=(conn,), daemon=True).start()
