"""What the MCP spec scripts share: a fixed clock, docket run on a store, and a tool's reply read."""
import json
import os
import subprocess
import sys


def at(time):
    """The moment HH:MM on the scripts' fixed day, as DOCKET_NOW takes it."""
    return f"2026-11-28T{time}:00+00:00"


def docket(binary, store, *arguments, time="10:00"):
    """docket on the store at `store`, at `time`, as no agent; its output, or the script stops with its error."""
    env = dict(os.environ, DOCKET_DIR=store, DOCKET_NOW=at(time))
    env.pop("DOCKET_AGENT", None)
    done = subprocess.run([binary, *arguments], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"docket {' '.join(arguments)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def result(reply):
    """A tool call's reply: its JSON (or an error's text), and whether it is an error."""
    text = reply.content[0].text
    error = getattr(reply, "is_error", None)
    if error is None:
        error = getattr(reply, "isError", False)
    return (json.loads(text) if not error else text), bool(error)
