#!/usr/bin/env python3
"""A TCP server on 127.0.0.1 that misbehaves in one way, for TransferMessagesSpec:
"silent" accepts and never says anything; "close" reads what the client says first, then closes;
"reset" resets it (SO_LINGER 0); "redirect" answers every HTTP request with a
redirect to itself. It stops by itself after 120 seconds.
Usage: misbehaving-server.py PORT silent|close|reset|redirect"""
import socket, struct, sys, threading, time

port, mode = int(sys.argv[1]), sys.argv[2]
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(16)
held = []

def serve(conn):
    if mode == "silent":
        held.append(conn)
        return
    if mode == "reset":
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    elif mode == "close":
        conn.settimeout(2)
        try:
            conn.recv(65536)
        except OSError:
            pass
    elif mode == "redirect":
        conn.settimeout(5)
        try:
            request = conn.recv(65536).decode("latin-1")
            path = request.split(" ")[1] if " " in request else "/"
            conn.sendall(("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d%s\r\nContent-Length: 0\r\n"
                          "Connection: close\r\n\r\n" % (port, path)).encode())
        except OSError:
            pass
    conn.close()

def stop_later():
    time.sleep(120)
    server.close()
    sys.exit(0)

threading.Thread(target=stop_later, daemon=True).start()
while True:
    try:
        connection, _ = server.accept()
    except OSError:
        break
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
