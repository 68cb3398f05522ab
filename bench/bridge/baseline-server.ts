// The floor for bench/bridge: the least a POST -> NDJSON fan-out server can do with node:http.
// POST /api/message parses the JSON, builds a 13-field message, writes one line to every stream client and answers;
// GET /api/stream writes a greeting line and stays open. No validation, no routing, no auth.
import { createServer, type ServerResponse } from "node:http";

const port = Number(process.argv[2]);
const clients = new Set<ServerResponse>();

function line(m: Record<string, unknown>): string {
  return JSON.stringify({
    text: m["text"] ?? "",
    channel: "api",
    username: m["username"] ?? "",
    userid: "",
    avatar: "",
    account: "api.in",
    event: m["event"] ?? "",
    protocol: "api",
    gateway: m["gateway"] ?? "",
    parent_id: "",
    timestamp: new Date().toISOString(),
    id: "",
    Extra: null,
  });
}

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/api/stream") {
    res.writeHead(200, { "content-type": "application/json" });
    res.write(`${line({ event: "api_connected" })}\n`);
    clients.add(res);
    res.on("close", () => clients.delete(res));
    return;
  }
  if (req.method === "POST" && req.url === "/api/message") {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const encoded = line(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      for (const client of clients) client.write(`${encoded}\n`);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(encoded);
    });
    return;
  }
  res.writeHead(404).end();
});
server.listen(port, "127.0.0.1", () => console.log(`baseline listening on ${port}`));
process.on("SIGTERM", () => {
  for (const client of clients) client.end();
  server.close(() => process.exit(0));
});
