"""Drives `submit-result mcp` with the MCP Python SDK (the `mcp` package), over standard input
and output and over streamable HTTP on loopback, and prints what it saw.

    python mcp_client.py PATH/TO/submit-result PATH/TO/schema.json

Exits non-zero on the first check that fails. `.ci/run` runs it in a fresh virtual
environment with the version pinned in requirements.txt beside this file.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

# A payload sent as a JSON string, the mistake of anthropics/claude-code issue 32662
# ("MCP tool argument object serialized as string"), here for the sample schema.
STRINGIFIED = {"reasoning": "The logs show the disk filled up.",
               "result": "{\"summary\":\"disk full\"}"}
# A stringified payload with prose after it: declined, with a hint.
DECLINED = {"reasoning": "r", "result": "{\"summary\": \"s\"} Hope this helps!"}
ALREADY = "a terminal result was already accepted"
# The bearer token the HTTP server is started with.
TOKEN = "python-client-token"
ACCEPTED = json.dumps({"success": True, "message": "Result submitted successfully."},
                      separators=(",", ":"))


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def text(result):
    return "".join(block.text for block in result.content if block.type == "text")


async def exercise(session, transport):
    await session.initialize()
    tools = (await session.list_tools()).tools
    check([tool.name for tool in tools] == ["submit_result"],
          f"{transport}: lists one tool, submit_result")
    schema = tools[0].input_schema
    check(schema["required"] == ["reasoning", "result"],
          f"{transport}: inputSchema is the parameters object {json.dumps(schema)[:80]}…")

    declined = await session.call_tool("submit_result", DECLINED)
    print(f"   declined -> isError={declined.is_error} text={text(declined)!r}")
    check(declined.is_error and "pass result as a nested JSON object" in text(declined),
          f"{transport}: a declined submit is isError with the hint")

    accepted = await session.call_tool("submit_result", STRINGIFIED)
    print(f"   stringified -> isError={accepted.is_error} text={text(accepted)!r}")
    check(not accepted.is_error and text(accepted) == ACCEPTED
          and accepted.structured_content == json.loads(ACCEPTED),
          f"{transport}: a stringified payload is recovered and accepted, its structured "
          "content serialized as its text")

    again = await session.call_tool("submit_result", STRINGIFIED)
    check(again.is_error and text(again) == ALREADY,
          f"{transport}: a second submit is refused")


def check_line(line, transport):
    outcome = json.loads(line)
    print(f"   written: {line.strip()}")
    check(outcome["accepted"] and outcome["response"] == {"summary": "disk full"}
          and outcome["recovery"] == "stringified",
          f"{transport}: the accepted result is written with its recovery")


async def over_stdio(binary, schema, scratch):
    out = os.path.join(scratch, "result.json")
    params = StdioServerParameters(command=binary,
                                   args=["mcp", "--schema", schema, "--out", out])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, "stdio")
    with open(out) as f:
        check_line(f.read(), "stdio")


async def over_http(binary, schema):
    server = subprocess.Popen([binary, "mcp", "--schema", schema, "--listen", "127.0.0.1:0"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "SUBMIT_RESULT_MCP_TOKEN": TOKEN})
    try:
        prefix = "submit-result: serving MCP at "
        url = None
        while url is None:
            line = server.stderr.readline()
            if not line:
                raise SystemExit("FAILED: the HTTP server ended before listening")
            if line.startswith(prefix):
                url = line[len(prefix):].strip()
        print(f"   serving at {url}")
        # Keep the server's log flowing (a full pipe would stall it), onto this process's.
        threading.Thread(target=lambda: sys.stderr.writelines(server.stderr),
                         daemon=True).start()
        # Without the token the server answers 401.
        anonymous = create_mcp_http_client()
        async with anonymous:
            refused = await anonymous.post(url, json={})
        check(refused.status_code == 401
              and refused.headers.get("www-authenticate", "").startswith("Bearer"),
              "http: a request without the bearer token gets 401 and a Bearer challenge")
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        async with client:
            async with streamable_http_client(url, http_client=client) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await exercise(session, "http")
        check_line(server.stdout.readline(), "http")
    finally:
        server.terminate()
        server.wait(timeout=10)


async def main():
    binary, schema = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as scratch:
        await over_stdio(binary, schema, scratch)
    await over_http(binary, schema)
    print("python mcp client: all checks passed")


asyncio.run(main())
