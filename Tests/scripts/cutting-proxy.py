#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 for fault specs: forwards connections to a target
port and cuts each after N bytes in one direction ("down": server to client,
"up": client to server), as a server killed mid-transfer would; or, with
"slow", delays every chunk by N milliseconds, as a slow network would.
Usage: cutting-proxy.py LISTEN_PORT TARGET_PORT up|down|slow N"""
import socket, sys, threading, time

listen_port, target_port, direction, limit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])

def pipe(source, sink, cut):
    sent = 0
    try:
        while True:
            data = source.recv(4096)
            if not data:
                break
            if direction == "slow":
                time.sleep(limit / 1000)
            elif cut and sent + len(data) > limit:
                sink.sendall(data[: max(0, limit - sent)])
                break
            sink.sendall(data)
            sent += len(data)
    except OSError:
        pass
    for s in (source, sink):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", listen_port))
server.listen(8)
server.settimeout(120)  # stops by itself
while True:
    try:
        client, _ = server.accept()
    except socket.timeout:
        break
    upstream = socket.create_connection(("127.0.0.1", target_port))
    threading.Thread(target=pipe, args=(client, upstream, direction == "up"), daemon=True).start()
    threading.Thread(target=pipe, args=(upstream, client, direction == "down"), daemon=True).start()
