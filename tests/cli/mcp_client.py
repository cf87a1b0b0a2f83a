"""Drives `cctool mcp` with the official MCP Python SDK's stdio client (tests/cli/mcp_client.rs).

Usage: mcp_client.py CCTOOL HOME WORKDIR PATTERN SESSION
The server hands out what the sessions hold (--no-redact), to be compared with rebuild-chain.
Prints one JSON object: the tools listed, the search hits, the Markdown read page by page,
and the text of an error answer.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def field(obj, snake, camel):
    """A field by its name in SDK 2 (snake case) or SDK 1 (the wire's camel case)."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel)


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def main(cctool, home, workdir, pattern, session):
    params = StdioServerParameters(command=cctool, args=["mcp", "--no-redact"], env={"HOME": home, "PATH": "/usr/bin:/bin"}, cwd=workdir)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            init = await client.initialize()
            tools = await client.list_tools()
            hits = await client.call_tool("search", {"pattern": pattern})
            markdown, offset = "", 0
            while offset is not None:
                page = await client.call_tool("read_session", {"session": session, "offset": offset, "max_bytes": 1024})
                answer = json.loads(text_of(page))
                markdown += answer["markdown"]
                offset = answer["next_offset"]
            bad = await client.call_tool("get_summaries", {"session": "ffff0000"})
            print(json.dumps({
                "server": field(init, "server_info", "serverInfo").name,
                "tools": [t.name for t in tools.tools],
                "hits": json.loads(text_of(hits)),
                "markdown": markdown,
                "bad": {"is_error": field(bad, "is_error", "isError"), "text": text_of(bad)},
            }))


asyncio.run(main(*sys.argv[1:]))
