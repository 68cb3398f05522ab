// The minimal pass-through proxy: node:http in, an undici Pool out, no logic (no parsing, no routing, no headers
// added). The practical floor for a Node proxy. Every request goes to the one upstream; the status, content type and
// body come back as they are, the body streamed chunk by chunk. GET /__proxy_health answers 200 itself (a liveness probe
// that measures the proxy's own event loop, not the upstream's).
// As a process: `node --import tsx bench/gateway/min-proxy.ts PORT UPSTREAM_URL [CONNECTIONS]` (the pool's cap on
// upstream connections, 256 unless given; 0 for none).
import { createServer, type Server } from "node:http";
import { pathToFileURL } from "node:url";
import { Pool } from "undici";

export function createMinimalProxy(upstream: string, connections = 256): { server: Server; pool: Pool } {
  const pool = new Pool(upstream, { connections: connections || null, pipelining: 1, keepAliveTimeout: 60_000 });
  const server = createServer((req, res) => {
    if (req.url === "/__proxy_health") {
      req.resume();
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const headers: Record<string, string> = {};
      const contentType = req.headers["content-type"];
      if (contentType) headers["content-type"] = contentType;
      const authorization = req.headers.authorization;
      if (authorization) headers.authorization = authorization;
      try {
        const upstreamResponse = await pool.request({
          path: req.url ?? "/",
          method: (req.method ?? "GET") as "GET",
          headers,
          body: chunks.length === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
        });
        const out: Record<string, string> = {};
        const type = upstreamResponse.headers["content-type"];
        if (typeof type === "string") out["content-type"] = type;
        const length = upstreamResponse.headers["content-length"];
        if (typeof length === "string") out["content-length"] = length;
        res.writeHead(upstreamResponse.statusCode, out);
        upstreamResponse.body.pipe(res);
        res.on("close", () => {
          if (!res.writableFinished) upstreamResponse.body.destroy();
        });
      } catch (error) {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(`upstream error: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  return { server, pool };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv[2] ?? 0);
  const upstream = process.argv[3];
  if (!upstream) {
    console.error("usage: min-proxy.ts PORT UPSTREAM_URL");
    process.exit(2);
  }
  const { server, pool } = createMinimalProxy(upstream, process.argv[4] === undefined ? 256 : Number(process.argv[4]));
  server.listen(port, "127.0.0.1", () => console.log(`minimal proxy listening on http://127.0.0.1:${port}`));
  const stop = async () => {
    server.close();
    server.closeAllConnections();
    await pool.destroy();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
