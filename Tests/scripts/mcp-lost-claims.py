#!/usr/bin/env python3
"""An agent (a real MCP client, PyPI's `mcp`, with its own `docket mcp`) losing claims in merges, on two clones.

Usage: mcp-lost-claims.py DOCKET FOLDER
In FOLDER: a bare remote, a laptop clone where agent-1's server runs, and a desk clone. agent-1 claims three todos
at 10:05; on the desk, before hearing of it, agent-2 claims 'Paint the fence' at 10:00 and completes it, agent-2
claims 'Fix bike' at 10:01, and agent-3 claims 'Oil chain' at 10:01. The desk syncs, then a plain `docket sync` on
the laptop (another server's, say) merges the desk's claim on 'Oil chain'; the desk then syncs its other work, and
agent-1's server syncs. Last, on the desk, agent-1's claim on 'Sweep' is given up, and agent-2 claims it and gives
it up, which another sync brings to the laptop. Prints one JSON object of what agent-1 was told: its sync's
lostClaims, and its heartbeat and complete on what it lost.
"""
import asyncio
import json
import os
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.dont_write_bytecode = True  # no Tests/scripts/__pycache__
from mcp_fixture import at, docket, result  # noqa: E402


async def main(binary, folder):
    remote, laptop, desk = (os.path.join(folder, name) for name in ["remote.git", "laptop", "desk"])
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", remote], check=True)
    docket(binary, folder, "clone", remote, laptop)
    ids = {text: docket(binary, laptop, "add", text) for text in ["Paint the fence", "Fix bike", "Oil chain", "Sweep"]}
    docket(binary, laptop, "sync")
    docket(binary, folder, "clone", remote, desk)
    env = dict(os.environ, DOCKET_DIR=laptop, DOCKET_NOW=at("10:05"))
    params = StdioServerParameters(command=binary, args=["mcp", "--as", "agent-1"], env=env)
    seen = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as agent:
        await agent.initialize()

        async def call(tool, **arguments):
            return result(await agent.call_tool(tool, arguments))

        for text in ids:
            claimed, error = await call("claim", id=ids[text])
            if error:
                sys.exit(f"agent-1 could not claim {text}: {claimed}")
        docket(binary, desk, "claim", ids["Oil chain"], "--as", "agent-3", time="10:01")
        docket(binary, desk, "sync", time="10:02")
        # Another server on the laptop's store syncs: agent-1's claim on 'Oil chain' loses there.
        docket(binary, laptop, "sync", time="10:06")
        docket(binary, desk, "claim", ids["Paint the fence"], "--as", "agent-2", time="10:00")
        docket(binary, desk, "done", ids["Paint the fence"], time="10:02")
        docket(binary, desk, "claim", ids["Fix bike"], "--as", "agent-2", time="10:01")
        docket(binary, desk, "sync", time="10:03")
        synced, error = await call("sync")
        if error:
            sys.exit(f"agent-1's sync failed: {synced}")
        seen["lost"] = sorted(item["text"] for item in synced["lostClaims"])
        seen["lost_holders"] = {
            item["text"]: (item["claim"] or {}).get("holder") for item in synced["lostClaims"]}
        seen["lost_done"] = sorted(item["text"] for item in synced["lostClaims"] if item["done"])
        again, _ = await call("sync")
        seen["lost_again"] = sorted(item["text"] for item in again["lostClaims"])
        beat, beat_error = await call("heartbeat", id=ids["Fix bike"])
        seen["heartbeat_lost"] = {"error": beat_error, "message": beat}
        done, done_error = await call("complete", id=ids["Oil chain"])
        seen["complete_lost"] = {
            "error": done_error, "claimLost": None if done_error else done.get("claimLost"),
            "holder": None if done_error else (done.get("holder") or {}).get("holder")}
        # On the desk, someone gives up agent-1's claim on 'Sweep', and agent-2 claims it and gives it up; another
        # server's sync brings that to the laptop.
        docket(binary, desk, "sync", time="10:07")
        docket(binary, desk, "release", ids["Sweep"], time="10:08")
        docket(binary, desk, "claim", ids["Sweep"], "--as", "agent-2", time="10:08")
        docket(binary, desk, "release", ids["Sweep"], "--as", "agent-2", time="10:09")
        docket(binary, desk, "sync", time="10:09")
        docket(binary, laptop, "sync", time="10:10")
        done, done_error = await call("complete", id=ids["Sweep"])
        seen["complete_replaced"] = {
            "error": done_error, "claimLost": None if done_error else done.get("claimLost"),
            "holder": None if done_error else (done.get("holder") or {}).get("holder")}
    print(json.dumps(seen, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
