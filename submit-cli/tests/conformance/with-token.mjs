// Forwards every HTTP request to the `submit-result mcp --listen` server at the URL given as
// the first argument, adding `Authorization: Bearer $SUBMIT_RESULT_MCP_TOKEN`: the MCP
// conformance suite takes a URL and sends no credentials. Every other header (Host and Origin
// included) and the body go through unchanged, and so does the answer, streamed. Prints the URL
// to give the suite, then serves until killed.
import http from 'node:http';

const upstream = new URL(process.argv[2]);
const token = process.env.SUBMIT_RESULT_MCP_TOKEN;
if (!token) {
  console.error('with-token: set SUBMIT_RESULT_MCP_TOKEN to the server\'s token');
  process.exit(2);
}

const proxy = http.createServer((request, response) => {
  const headers = { ...request.headers, authorization: `Bearer ${token}` };
  const forwarded = http.request(
    { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers },
    (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    },
  );
  forwarded.on('error', (error) => {
    if (!response.headersSent) response.writeHead(502);
    response.end(`with-token: ${error.message}\n`);
  });
  // A client that goes away ends the server's stream too (an SSE stream it stopped reading).
  response.on('close', () => forwarded.destroy());
  request.pipe(forwarded);
});
proxy.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${proxy.address().port}${upstream.pathname}`);
});
