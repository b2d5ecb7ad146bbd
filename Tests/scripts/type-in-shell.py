#!/usr/bin/env python3
"""Types into an interactive shell on a pseudo-terminal, as a person would,
and prints what the terminal showed, without its escape sequences.

    type-in-shell.py SHELL KEYS...

Each KEYS argument is sent once the shell has gone quiet (\\t is TAB, \\r is
Enter). It waits on what the shell shows, not on time alone, so a busy
machine cannot part a key from its answer: each TAB is sent on its own and
waited on until the shell answers it, and `echo MARK` until MARK is printed
(each up to 30 s). The shell gets exit at the end and is killed if it
outlives 180 s. The environment (HOME, PATH, TERM) is the caller's."""
import os, pty, re, select, signal, sys, time

shell, keys = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(shell, [shell, "-i"])

shown = b""
deadline = time.time() + 180

def read_once(timeout):
    """Adds what the terminal shows within `timeout` seconds; False once the shell is gone."""
    global shown
    ready, _, _ = select.select([fd], [], [], timeout)
    if ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        shown += chunk
    return True

def settle(quiet=0.6):
    """Reads until nothing has come for `quiet` seconds."""
    last, size = time.time(), len(shown)
    while time.time() - last < quiet and time.time() < deadline:
        if not read_once(0.05):
            return
        if len(shown) != size:
            last, size = time.time(), len(shown)

def wait_for(done, limit=30, quiet=0.6):
    """Reads until `done()` holds (or `limit` seconds pass), then until the shell is quiet."""
    until = min(time.time() + limit, deadline)
    while not done() and time.time() < until:
        if not read_once(0.05):
            return
    settle(quiet)

settle(1.5)
for key in keys:
    text = key.encode().decode("unicode_escape")
    marker = re.fullmatch(r"echo (\S+)\r", text)
    for part in re.split(r"(\t)", text):
        if not part:
            continue
        start = len(shown)
        os.write(fd, part.encode())
        if part == "\t":
            # The shell answers a TAB once its completion ran: a beep, a list or the word completed. NB: a shell may
            # show part of its answer while the completion's docket still runs (a busy machine slows it): a Ctrl-C
            # then would reach that docket, not the line, so the answer gets a longer quiet.
            wait_for(lambda: len(shown) > start, quiet=1.5)
        elif marker:
            # Typed, the marker shows once; printed, once more.
            wait_for(lambda: shown.count(marker.group(1).encode(), start) >= 2)
        else:
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
