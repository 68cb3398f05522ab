import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { Http1Client } from "../../src/backends/http1/client.ts";
import type { PoolSettings } from "../../src/backends/http1/pool.ts";
import type { ResponseSink, UpstreamCall } from "../../src/backends/upstream-call.ts";

/** One request as a raw backend read it off its socket. */
export interface ReceivedRequest {
  head: string;
  body: Buffer;
  socket: Socket;
}

/**
 * A backend on a raw TCP socket, so that tests control every byte and every segment of its answers. It reads the
 * requests on each connection one after another (Content-Length bodies, as the client sends) and hands each to
 * `answer`, which writes whatever it likes.
 */
export class RawBackend {
  readonly server: Server;
  readonly sockets = new Set<Socket>();
  connections = 0;

  constructor(public answer: (request: ReceivedRequest) => void) {
    this.server = createServer((socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", () => {});
      let buffered = Buffer.alloc(0);
      socket.on("data", (bytes: Buffer) => {
        buffered = Buffer.concat([buffered, bytes]);
        for (;;) {
          const end = buffered.indexOf("\r\n\r\n");
          if (end === -1) return;
          const head = buffered.toString("latin1", 0, end);
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buffered.length < end + 4 + length) return;
          const body = buffered.subarray(end + 4, end + 4 + length);
          buffered = buffered.subarray(end + 4 + length);
          this.answer({ head, body, socket });
        }
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Writes `bytes` in the given pieces, yielding to the event loop between them so that they leave as separate segments. */
export async function writeInPieces(socket: Socket, bytes: Buffer, cuts: number[]): Promise<void> {
  let from = 0;
  for (const cut of [...cuts.filter((at) => at > 0 && at < bytes.length)].sort((a, b) => a - b).concat(bytes.length)) {
    if (cut <= from) continue;
    if (socket.destroyed) return;
    socket.write(bytes.subarray(from, cut));
    from = cut;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const SETTINGS: Omit<PoolSettings, "host" | "port"> = {
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveMs: 30_000,
  keepAliveMaxMs: 300_000,
  keepAliveMarginMs: 2_000,
  answerLimitBytes: 64 * 1024 * 1024,
  maxConnections: undefined,
};

export function clientFor(
  url: string,
  settings: Partial<PoolSettings> = {},
  headers: Record<string, string> = { "content-type": "application/json" },
): Http1Client {
  return new Http1Client(new URL(url), "", headers, { ...SETTINGS, ...settings });
}

/** Clients for a suite's backend (its URL known once it listens), all closed by closeAll() after each test. */
export class SuiteClients {
  readonly #clients: Http1Client[] = [];
  constructor(private readonly urlOf: () => string) {}

  make(settings: Partial<PoolSettings> = {}): Http1Client {
    const client = clientFor(this.urlOf(), settings);
    this.#clients.push(client);
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#clients.splice(0).map((client) => client.close()));
  }
}

/** Everything a sink was told, in order, and a promise settled by its last word. */
export interface Recording {
  events: string[];
  statusCode?: number;
  contentType?: string;
  body: Buffer;
  error?: Error;
  call: UpstreamCall;
  /** Resolves on end() or error(); the test fails if the sink hears anything after that. */
  settled: Promise<void>;
}

export function record(
  start: (sink: ResponseSink) => UpstreamCall,
  hooks: { onData?: (chunk: Buffer, recording: Recording) => void } = {},
): Recording {
  const chunks: Buffer[] = [];
  let settle = () => {};
  const recording = {
    events: [] as string[],
    body: Buffer.alloc(0),
    settled: new Promise<void>((resolve) => {
      settle = resolve;
    }),
  } as Recording;
  const after = (event: string) => {
    const last = recording.events.at(-1);
    if (last === "end" || last === "error") throw new Error(`sink called (${event}) after ${last}`);
    recording.events.push(event);
  };
  recording.call = start({
    start(statusCode, contentType) {
      after("start");
      recording.statusCode = statusCode;
      recording.contentType = contentType;
    },
    data(chunk) {
      after("data");
      chunks.push(Buffer.from(chunk));
      recording.body = Buffer.concat(chunks);
      hooks.onData?.(chunk, recording);
    },
    end() {
      after("end");
      settle();
    },
    error(error) {
      after("error");
      recording.error = error;
      settle();
    },
  });
  return recording;
}

/** A POST through the client, recorded. */
export function post(client: Http1Client, body = "{}", hooks: Parameters<typeof record>[1] = {}): Recording {
  return record((sink) => client.post("/v1/chat/completions", body, { requestId: "req-1" }, sink), hooks);
}

/** Resolves once `condition` holds, checking on every turn of the event loop; fails after `ms`. */
export async function until(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
