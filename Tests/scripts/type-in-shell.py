#!/usr/bin/env python3
"""Types into an interactive shell on a pseudo-terminal, as a person would,
and prints what the terminal showed, without its escape sequences.

    type-in-shell.py SHELL KEYS...

Each KEYS argument is sent once the shell has gone quiet (\\t is TAB, \\r is
Enter); the shell gets exit at the end and is killed if it outlives 20 s.
The environment (HOME, PATH, TERM) is the caller's."""
import os, pty, re, select, signal, sys, time

shell, keys = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(shell, [shell, "-i"])

shown = b""
deadline = time.time() + 20

def settle(quiet=0.6):
    """Reads until nothing has come for `quiet` seconds."""
    global shown
    last = time.time()
    while time.time() - last < quiet and time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            shown += chunk
            last = time.time()

settle(1.5)
for key in keys:
    os.write(fd, key.encode().decode("unicode_escape").encode())
    settle()
os.write(fd, b"\x03")
settle(0.3)
os.write(fd, b"exit\r")
settle(0.3)
try:
    os.kill(pid, signal.SIGKILL)
except ProcessLookupError:
    pass
os.waitpid(pid, 0)
text = shown.decode(errors="replace")
text = re.sub(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", "", text)      # titles
text = re.sub(r"\x1b\[[0-9;?<=>]*[ -/]*[@-~]", "", text)         # colours, cursor moves
text = re.sub(r"\x1b[()][0-9A-B]|\x1b[=>]", "", text)
sys.stdout.write(text)
