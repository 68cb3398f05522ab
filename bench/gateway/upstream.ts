// The trivially fast fake upstream: node:http with prebuilt bodies, like the reference harness's fake-upstream.
// POST /v1/chat/completions answers a fixed chat.completion, or with "stream":true 20 SSE chunks + [DONE] written
// at once (chunked encoding, as real servers stream). GET /v1/models lists the one model.
// As a process: `node --import tsx bench/gateway/upstream.ts PORT` prints "upstream listening on http://127.0.0.1:PORT".
import { createServer, type Server } from "node:http";
import { pathToFileURL } from "node:url";

export const BENCH_MODEL = "bench-model";
const CHUNKS = 20;

const created = 1_700_000_000;
const completion = Buffer.from(
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created,
    model: BENCH_MODEL,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "The quick brown fox jumps over the lazy dog." },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 24, completion_tokens: 10, total_tokens: 34 },
    system_fingerprint: "fp_bench",
  }),
);

function streamBody(): Buffer {
  const events: string[] = [];
  for (let i = 0; i < CHUNKS; i++) {
    const delta = i === 0 ? { role: "assistant", content: "" } : { content: `token${i} ` };
    const chunk = {
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created,
      model: BENCH_MODEL,
      system_fingerprint: "fp_bench",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: i === CHUNKS - 1 ? "stop" : null }],
    };
    events.push(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  events.push("data: [DONE]\n\n");
  return Buffer.from(events.join(""));
}

const stream = streamBody();
const models = Buffer.from(
  JSON.stringify({ object: "list", data: [{ id: BENCH_MODEL, object: "model", created, owned_by: "bench" }] }),
);
const STREAM_MARKER = Buffer.from('"stream":true');

export function createUpstream(): Server {
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/v1/chat/completions") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        if (body.includes(STREAM_MARKER)) {
          // One write: the head, the whole stream as one chunk and the last chunk leave together.
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
          res.cork();
          res.write(stream);
          res.end();
          res.uncork();
        } else {
          res.writeHead(200, { "content-type": "application/json", "content-length": completion.length });
          res.end(completion);
        }
      });
      return;
    }
    req.resume();
    if (req.method === "GET" && req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json", "content-length": models.length });
      res.end(models);
      return;
    }
    if (req.url === "/health") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv[2] ?? 0);
  const server = createUpstream();
  server.listen(port, "127.0.0.1", () => {
    const address = server.address();
    const bound = address && typeof address === "object" ? address.port : port;
    console.log(`upstream listening on http://127.0.0.1:${bound}`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
