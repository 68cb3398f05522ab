// The slow fake upstream: POST /v1/chat/completions with "stream": true answers 20 OpenAI chat.completion.chunk
// events 50 ms apart, then `data: [DONE]` (chunked encoding, keep-alive). On raw node:net with prebuilt frames and one
// shared 5 ms timer wheel, so that thousands of streams cost it little CPU: it is the load, not the thing measured.
//
// A barrier makes N streams concurrent: after `POST /__barrier?streams=N`, each stream gets its response head at once
// but its first chunk only once N streams have arrived (or the barrier's timeout passes). The released streams start
// spread evenly over `spread_ms` (as streams of real clients start at different times), not 5,000 in one burst. `GET /__stats` reports (and
// resets) the streams served and the peak of connections and streams open at once: a pool that caps connections
// shows up there.
// As a process: `node --import tsx bench/gateway-streams/slow-upstream.ts PORT` prints "slow upstream listening on
// http://127.0.0.1:PORT".
import { createServer, type Server, type Socket } from "node:net";
import { pathToFileURL } from "node:url";
import { expectedChunk, STREAM_CHUNKS } from "./sse-check.ts";

const CHUNK_INTERVAL_MS = 50;
const SLOT_MS = 5;
const SLOTS = CHUNK_INTERVAL_MS / SLOT_MS;

/** One chunk of chunked transfer encoding. */
const frame = (text: string): Buffer => {
  const bytes = Buffer.from(text);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]);
};
/** Frame i is event i; the last one also carries [DONE] and the terminating chunk. */
const frames: Buffer[] = Array.from({ length: STREAM_CHUNKS }, (_, i) =>
  i < STREAM_CHUNKS - 1
    ? frame(`data: ${expectedChunk(i)}\n\n`)
    : Buffer.concat([frame(`data: ${expectedChunk(i)}\n\ndata: [DONE]\n\n`), Buffer.from("0\r\n\r\n")]),
);
const STREAM_HEAD = Buffer.from(
  "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n" +
    "transfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n",
);

function plain(status: string, type: string, body: string, close = false): Buffer {
  const bytes = Buffer.from(body);
  return Buffer.concat([
    Buffer.from(
      `HTTP/1.1 ${status}\r\ncontent-type: ${type}\r\ncontent-length: ${bytes.length}\r\n` +
        `connection: ${close ? "close" : "keep-alive"}\r\n\r\n`,
    ),
    bytes,
  ]);
}

const MODELS = plain(
  "200 OK",
  "application/json",
  JSON.stringify({ object: "list", data: [{ id: "bench-model", object: "model", created: 0, owned_by: "bench" }] }),
);
const COMPLETION = plain(
  "200 OK",
  "application/json",
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "bench-model",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 24, completion_tokens: 1, total_tokens: 25 },
  }),
);
const OK = plain("200 OK", "text/plain", "ok");
const NOT_FOUND = plain("404 Not Found", "text/plain", "not found");
const BAD_REQUEST = plain("400 Bad Request", "text/plain", "bad request", true);
const HEAD_END = Buffer.from("\r\n\r\n");
const STREAM_MARKER = Buffer.from('"stream":true');

interface Stream {
  socket: Socket;
  next: number;
  done: boolean;
}

export interface UpstreamStats {
  streams: number;
  peakStreams: number;
  peakConnections: number;
}

export function createSlowUpstream(): Server {
  const wheel: Stream[][] = Array.from({ length: SLOTS }, () => []);
  const epoch = performance.now();
  let lastSlot = Math.floor((performance.now() - epoch) / SLOT_MS);
  let held: Stream[] = [];
  let barrier = 0;
  let barrierTimer: NodeJS.Timeout | undefined;
  let open = 0;
  let connections = 0;
  const stats: UpstreamStats = { streams: 0, peakStreams: 0, peakConnections: 0 };

  const schedule = (stream: Stream, slot: number) => wheel[slot % SLOTS]!.push(stream);
  // Released streams waiting for their start, in order, spread over `spreadMs`.
  let starting: { stream: Stream; slot: number }[] = [];
  let spreadMs = 0;
  const release = () => {
    clearTimeout(barrierTimer);
    barrier = 0;
    const slots = Math.max(1, Math.round(spreadMs / SLOT_MS));
    starting = held.map((stream, i) => ({ stream, slot: lastSlot + 1 + Math.floor((i * slots) / held.length) }));
    held = [];
  };
  const tick = () => {
    const now = Math.floor((performance.now() - epoch) / SLOT_MS);
    let started = 0;
    while (started < starting.length && starting[started]!.slot <= now) schedule(starting[started++]!.stream, now);
    if (started > 0) starting = starting.slice(started);
    // At most one period per tick: a late tick never sends one stream two chunks at once.
    for (let slot = Math.max(lastSlot + 1, now - SLOTS + 1); slot <= now; slot++) {
      const bucket = wheel[slot % SLOTS]!;
      if (bucket.length === 0) continue;
      const kept: Stream[] = [];
      for (const stream of bucket) {
        if (stream.done) continue;
        stream.socket.write(frames[stream.next]!);
        if (++stream.next === STREAM_CHUNKS) {
          stream.done = true;
          open--;
        } else kept.push(stream);
      }
      wheel[slot % SLOTS] = kept;
    }
    lastSlot = now;
  };
  const ticker = setInterval(tick, SLOT_MS);

  const startStream = (socket: Socket): Stream => {
    socket.write(STREAM_HEAD);
    const stream: Stream = { socket, next: 0, done: false };
    stats.streams++;
    stats.peakStreams = Math.max(stats.peakStreams, ++open);
    if (barrier > 0) {
      held.push(stream);
      if (held.length >= barrier) release();
    } else schedule(stream, lastSlot + 1);
    return stream;
  };

  const control = (path: string, socket: Socket) => {
    const url = new URL(path, "http://upstream");
    if (url.pathname === "/__barrier") {
      release();
      barrier = Number(url.searchParams.get("streams") ?? 0);
      spreadMs = Number(url.searchParams.get("spread_ms") ?? 0);
      barrierTimer = setTimeout(release, Number(url.searchParams.get("timeout_ms") ?? 30_000));
      socket.write(OK);
    } else {
      socket.write(plain("200 OK", "application/json", JSON.stringify(stats)));
      Object.assign(stats, { streams: 0, peakStreams: open, peakConnections: connections });
    }
  };

  const server = createServer((socket) => {
    socket.setNoDelay(true);
    stats.peakConnections = Math.max(stats.peakConnections, ++connections);
    let pending: Buffer = Buffer.alloc(0);
    let current: Stream | undefined;
    socket.on("close", () => {
      connections--;
      if (current && !current.done) {
        current.done = true;
        open--;
      }
    });
    socket.on("error", () => {});
    socket.on("data", (data: Buffer) => {
      pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
      for (;;) {
        const headEnd = pending.indexOf(HEAD_END);
        if (headEnd < 0) return;
        const head = pending.toString("latin1", 0, headEnd);
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        if (/\r\ntransfer-encoding:/i.test(head)) return void socket.end(BAD_REQUEST);
        const bodyEnd = headEnd + 4 + Number(length?.[1] ?? 0);
        if (pending.length < bodyEnd) return;
        const body = pending.subarray(headEnd + 4, bodyEnd);
        pending = pending.subarray(bodyEnd);
        const [method, path = "/"] = head.slice(0, head.indexOf("\r\n")).split(" ");
        if (method === "POST" && path === "/v1/chat/completions") {
          if (body.includes(STREAM_MARKER)) current = startStream(socket);
          else socket.write(COMPLETION);
        } else if (method === "GET" && path === "/v1/models") socket.write(MODELS);
        else if (path === "/health") socket.write(OK);
        else if (path.startsWith("/__")) control(path, socket);
        else socket.write(NOT_FOUND);
      }
    });
  });
  server.on("close", () => {
    clearInterval(ticker);
    clearTimeout(barrierTimer);
  });
  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createSlowUpstream();
  server.listen(Number(process.argv[2] ?? 0), "127.0.0.1", 4096, () => {
    const address = server.address();
    console.log(`slow upstream listening on http://127.0.0.1:${typeof address === "object" ? address?.port : 0}`);
  });
  const stop = () => process.exit(0);
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
