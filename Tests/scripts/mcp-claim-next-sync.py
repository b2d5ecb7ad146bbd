#!/usr/bin/env python3
"""An agent's claim_next with `sync` on a clone that has not heard of another clone's claims.

Usage: mcp-claim-next-sync.py DOCKET FOLDER
In FOLDER: a bare remote, a laptop clone where agent-1's server runs, and a desk clone, with four todos. On the desk,
agent-2 claims at 10:00 every todo but the first ready one, the one agent-1 starts at among them too, and syncs. On
the laptop, which has not synced since, agent-1's server calls claim_next with sync at 10:05. Prints one JSON object:
the todo agent-1 got and its holder, and the claims that merges on the laptop and on the desk (synced after) recorded
as lost. Then the same in a race: in fresh clones, the desk's claim (at 10:00) on the todo agent-1 starts at reaches
the remote while agent-1's claim_next pushes (the laptop's pre-push hook syncs the desk first), so that push goes to
the laptop's writer reference; "race_*" say what agent-1 got then.
"""
import asyncio
import json
import os
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.dont_write_bytecode = True  # no Tests/scripts/__pycache__
from mcp_fixture import at, docket  # noqa: E402


def lost_claims(binary, store):
    merges = json.loads(docket(binary, store, "merges", "--json", time="10:06"))
    return [field["lost"] for merge in merges for item in merge["report"]["items"] for field in item["fields"]
            if field["field"] == "claim" and field.get("lost")]


async def claim_next(binary, laptop):
    env = dict(os.environ, DOCKET_DIR=laptop, DOCKET_NOW=at("10:05"))
    env.pop("DOCKET_AGENT", None)
    params = StdioServerParameters(command=binary, args=["mcp", "--as", "agent-1"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as agent:
        await agent.initialize()
        reply = await agent.call_tool("claim_next", {"sync": True})
        if getattr(reply, "isError", False) or getattr(reply, "is_error", False):
            sys.exit(f"claim_next failed: {reply.content[0].text}")
        return json.loads(reply.content[0].text)


def clones(binary, folder):
    remote, laptop, desk = (os.path.join(folder, name) for name in ["remote.git", "laptop", "desk"])
    os.makedirs(folder, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", remote], check=True)
    docket(binary, folder, "clone", remote, laptop)
    for text in ["Paint the fence", "Fix bike", "Oil chain", "Sweep"]:
        docket(binary, laptop, "add", text)
    docket(binary, laptop, "sync")
    docket(binary, folder, "clone", remote, desk)
    return laptop, desk, json.loads(docket(binary, laptop, "ready", "--as", "agent-1", "--json"))


async def race(binary, folder, seen):
    laptop, desk, ready = clones(binary, folder)
    taken = ready[3]
    docket(binary, desk, "claim", taken["id"], "--as", "agent-2")
    hook = os.path.join(laptop, ".git", "hooks", "pre-push")
    os.makedirs(os.path.dirname(hook), exist_ok=True)
    marker = os.path.join(folder, "desk-synced")
    with open(hook, "w") as file:
        file.write(f"""#!/bin/sh
[ -e '{marker}' ] && exit 0
touch '{marker}'
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX
DOCKET_DIR='{desk}' DOCKET_NOW='{at("10:01")}' '{os.path.abspath(binary)}' sync >/dev/null 2>&1
exit 0
""")
    os.chmod(hook, 0o755)
    claimed = await claim_next(binary, laptop)
    seen["race_desk_synced"] = os.path.exists(marker)
    seen["race_taken"] = taken["text"]
    seen["race_claimed"] = claimed["text"]
    seen["race_holder"] = claimed["claim"]["holder"]
    docket(binary, desk, "sync", time="10:06")
    desk_todos = json.loads(docket(binary, desk, "list", "--json", time="10:06"))
    seen["race_taken_holder"] = next(
        (t["claim"] or {}).get("holder") for t in desk_todos if t["text"] == taken["text"])


async def main(binary, folder):
    laptop, desk, ready = clones(binary, os.path.join(folder, "behind"))
    # NB: agent-1's name hashes to 3 modulo 4: on the laptop's list of four it starts at the last, which the desk took.
    for todo in ready[1:]:
        docket(binary, desk, "claim", todo["id"], "--as", "agent-2")
    docket(binary, desk, "sync")
    seen = {"free": ready[0]["text"]}
    claimed = await claim_next(binary, laptop)
    seen["claimed"] = claimed["text"]
    seen["holder"] = claimed["claim"]["holder"]
    docket(binary, desk, "sync", time="10:06")
    seen["lost_laptop"] = lost_claims(binary, laptop)
    seen["lost_desk"] = lost_claims(binary, desk)
    desk_todos = json.loads(docket(binary, desk, "list", "--json", time="10:06"))
    seen["desk_holders"] = sorted((t["claim"] or {}).get("holder", "") for t in desk_todos if t.get("claim"))
    await race(binary, os.path.join(folder, "race"), seen)
    print(json.dumps(seen))

if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
