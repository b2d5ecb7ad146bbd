#!/usr/bin/env python3
"""Two agents, each a real MCP client (PyPI's `mcp`) with its own `docket mcp` server, on one store.

Usage: mcp-two-agents.py DOCKET STORE
Lists the tools, adds two todos, has each agent claim_next (they must get different items), checks that one agent
cannot renew the other's claim (a tool error naming the holder), completes both, and prints one JSON object of what
it saw on stdout. Exits 1 on a failed check, naming it.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.dont_write_bytecode = True  # no Tests/scripts/__pycache__
from mcp_fixture import result  # noqa: E402


def server(docket, store, agent):
    env = dict(os.environ, DOCKET_DIR=store)
    return StdioServerParameters(command=docket, args=["mcp", "--as", agent], env=env)


async def call(session, tool, **arguments):
    return result(await session.call_tool(tool, arguments))


async def main(docket, store):
    seen = {}
    async with stdio_client(server(docket, store, "agent-1")) as (r1, w1), ClientSession(r1, w1) as one:
        async with stdio_client(server(docket, store, "agent-2")) as (r2, w2), ClientSession(r2, w2) as two:
            await one.initialize()
            await two.initialize()
            tools = await one.list_tools()
            seen["tools"] = sorted(t.name for t in tools.tools)
            seen["described"] = all(t.description and t.input_schema for t in tools.tools)
            first, _ = await call(one, "add", text="Paint the fence", tags=["garden"])
            second, _ = await call(two, "add", text="Fix the bike", priority="high")
            got_one, err_one = await call(one, "claim_next")
            got_two, err_two = await call(two, "claim_next")
            seen["claimed"] = [got_one["id"], got_two["id"]] if not (err_one or err_two) else [got_one, got_two]
            seen["holders"] = [got_one["claim"]["holder"], got_two["claim"]["holder"]]
            ready, _ = await call(two, "ready")
            seen["ready_for_two"] = [item["id"] for item in ready["items"]]
            stolen, stolen_error = await call(two, "heartbeat", id=got_one["id"])
            seen["heartbeat_on_other"] = {"error": stolen_error, "message": stolen}
            third, third_error = await call(one, "claim_next")
            seen["claim_next_when_none_free"] = {"error": third_error, "message": third}
            bad, bad_error = await call(one, "show", id="zzzz")
            seen["show_unknown"] = {"error": bad_error, "message": bad}
            done_one, _ = await call(one, "complete", id=got_one["id"], note="painted")
            done_two, _ = await call(two, "complete", id=got_two["id"])
            seen["completed"] = [done_one["item"]["done"], done_two["item"]["done"]]
            seen["ids"] = sorted([first["id"], second["id"]])
    print(json.dumps(seen, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
