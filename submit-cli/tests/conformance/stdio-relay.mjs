// Serves, over streamable HTTP, a stdio MCP server started as the command given as arguments:
// the MCP conformance suite takes a URL, and `submit-result mcp` over standard input and output
// serves one session per process, so each session the suite opens starts its own process. The
// HTTP side is the MCP TypeScript SDK's transport, used without a server of its own: every
// message goes to the process as one line, every line the process writes comes back as a
// message, unchanged both ways. Prints the URL to give the suite, then serves until killed.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import readline from 'node:readline';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const [command, ...args] = process.argv.slice(2);
const sessions = new Map();

/** A transport for a new session, relayed to a new process. */
async function open() {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onmessage = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  transport.onclose = () => {
    sessions.delete(transport.sessionId);
    child.stdin.end();
  };
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    transport.send(JSON.parse(line)).catch((error) => console.error(`stdio-relay: ${error.message}`));
  });
  child.on('exit', () => sessions.delete(transport.sessionId));
  await transport.start();
  return transport;
}

const relay = http.createServer(async (request, response) => {
  const id = request.headers['mcp-session-id'];
  const transport = id === undefined ? await open() : sessions.get(id);
  if (transport === undefined) {
    response.writeHead(404).end('stdio-relay: no such session\n');
    return;
  }
  await transport.handleRequest(request, response);
});
relay.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${relay.address().port}/mcp`);
});
