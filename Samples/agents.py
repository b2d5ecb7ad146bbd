#!/usr/bin/env python3
"""Three coding agents share one Docket list through `docket mcp`, each a real MCP client (PyPI's `mcp`).

Two clones of one bare remote: agent-1 and agent-2 share the laptop's working tree, agent-3 works in the desk's
clone. A planner adds the work (one item waits for another), then each agent takes the next ready item (syncing
at once), works, completes it and syncs, until nothing is left. What each one did is printed as it happens. Everything lives in a
throwaway folder. DOCKET names the docket to run (docket on the PATH by default).

    python3 Samples/agents.py
"""
import asyncio
import json
import os
import subprocess
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

DOCKET = os.environ.get("DOCKET", "docket")


async def call(session, tool, **arguments):
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text
    return (None, text) if getattr(result, "is_error", False) else (json.loads(text), None)


async def agent(name, store, say):
    server = StdioServerParameters(command=DOCKET, args=["mcp", "--as", name], env=dict(os.environ, DOCKET_DIR=store))
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        while True:
            # sync=True: the claim is shared at once, and one an earlier claim beat is replaced by the next item.
            item, error = await call(session, "claim_next", lease_minutes=30, sync=True)
            if error:
                synced, _ = await call(session, "sync")
                if synced and synced["arrived"]:
                    continue
                say(name, "nothing left that is ready and free: done for today")
                return
            say(name, f"claimed '{item['text']}'")
            await asyncio.sleep(0.1)
            _, lost = await call(session, "heartbeat", id=item["id"])
            if lost:
                say(name, f"lost '{item['text']}' to an earlier claim: {lost}")
                continue
            done, _ = await call(session, "complete", id=item["id"], note=f"done by {name}")
            say(name, f"completed '{done['item']['text']}'")
            await call(session, "sync")


async def main():
    work = tempfile.mkdtemp(prefix="docket-agents-sample-")
    remote, laptop, desk = (os.path.join(work, n) for n in ["remote.git", "laptop", "desk"])
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", remote], check=True)
    subprocess.run([DOCKET, "clone", remote, laptop], check=True, capture_output=True)

    def docket(*args):
        return subprocess.run([DOCKET, "-C", laptop, *args], check=True, capture_output=True, text=True).stdout.strip()

    schema = docket("add", "Design the schema", "+backend")
    docket("add", "Write the migration", "+backend")
    api = docket("add", "Build the API", "+backend")
    docket("depend", api, "+" + schema)
    docket("add", "Write the README")
    docket("sync")
    subprocess.run([DOCKET, "clone", remote, desk], check=True, capture_output=True)
    print("planner: 4 items, 'Build the API' waits for 'Design the schema'")

    def say(name, line):
        print(f"{name}: {line}", flush=True)

    await asyncio.gather(agent("agent-1", laptop, say), agent("agent-2", laptop, say), agent("agent-3", desk, say))
    docket("sync")
    print("\n" + docket("list", "--all"))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    asyncio.run(main())
