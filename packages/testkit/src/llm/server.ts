// The HTTP machinery both fakes share: listening, recording, fault modes, authentication, in-flight and abort counts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { freePort } from "../ports.ts";
import { DEFAULT_MODELS } from "./content.ts";
import type { FakeLlmOptions, FakeLlmServer, FakeModel, Fault, RecordedRequest } from "./types.ts";

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export type ParsedBody = { ok: true; value: unknown } | { ok: false; text: string };

/** One request being answered. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: ParsedBody | undefined;
  readonly options: FakeLlmOptions;
  readonly models: FakeModel[];
  /** Models in memory (Ollama's /api/ps): every model at start; loads and unloads change it. */
  readonly loaded: Set<string>;
  /** Adds a model (a completed pull). */
  addModel(model: FakeModel): void;
  /** Set when the die-mid-stream fault was in effect as the request began. */
  readonly dieAfter: number | undefined;
  /** Set when the stream-error fault was in effect as the request began. */
  readonly errorAfter: number | undefined;
  /** Destroys the connection on purpose (die-mid-stream): not counted as a client abort. */
  kill(): void;
}

export type Handler = (exchange: Exchange) => void | Promise<void>;

/** What differs between the OpenAI and the Ollama fakes. */
export interface Dialect {
  /** Keyed by "METHOD /path". */
  routes: Map<string, Handler>;
  /** Whether the path is a chat, completion or embedding request (fault scope "inference"). */
  isInference(path: string): boolean;
  /** The body of a `status` fault without an explicit body. */
  faultBody(status: number, path: string): unknown;
  /** The 401 answer when `apiKey` is set and the request does not carry it. */
  unauthorized(exchange: Exchange, provided: boolean): void;
  /** Where this API reads its key (default: `Authorization: Bearer`). */
  credential?(req: IncomingMessage, query: URLSearchParams): string | undefined;
  /** Routes with parameters in the path (checked when `routes` has no exact match). */
  route?(method: string, path: string): Handler | undefined;
  notFound(exchange: Exchange): void;
}

export function sendJson(
  exchange: Exchange,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const { res } = exchange;
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  if (exchange.dieAfter !== undefined) {
    // A non-streaming answer that dies: the headers and half of the body, then the connection goes away.
    const bytes = Buffer.from(text);
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    exchange.kill();
    return;
  }
  res.end(text);
}

function bearerOf(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(.+)$/i);
  return match?.[1]?.trim();
}

function readBody(req: IncomingMessage): Promise<ParsedBody | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy(new Error("body too large"));
        return;
      }
      chunks.push(chunk);
    });
    req.on("error", reject);
    req.on("end", () => {
      if (size === 0) return resolve(undefined);
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve({ ok: true, value: JSON.parse(text) });
      } catch {
        resolve({ ok: false, text });
      }
    });
  });
}

/** A promise with its resolver (Promise.withResolvers is newer than Node 20). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function inScope(fault: Fault, dialect: Dialect, path: string): boolean {
  if (!("scope" in fault) || fault.scope === undefined || fault.scope === "all") return true;
  return dialect.isInference(path);
}

class FakeServer implements FakeLlmServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #options: FakeLlmOptions;
  readonly #dialect: Dialect;
  #models: FakeModel[];
  #fault: Fault = { kind: "none" };
  #faultChanged = deferred();
  #port = 0;
  readonly #host: string;
  readonly #loaded: Set<string>;
  #inFlight = 0;
  #aborted = 0;
  #closed = false;
  #listening = false;

  constructor(options: FakeLlmOptions, dialect: Dialect) {
    this.#options = options;
    this.#dialect = dialect;
    this.#models = options.models ?? DEFAULT_MODELS;
    this.#host = options.host ?? "127.0.0.1";
    this.#loaded = new Set(this.#models.map((model) => model.id));
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end(`fake server error: ${error instanceof Error ? error.message : String(error)}`);
        } else res.destroy();
      });
    });
    this.#server.on("connection", (socket: Socket) => {
      if (this.#closed || this.#fault.kind === "refuse") {
        socket.destroy();
        return;
      }
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
    this.#server.on("clientError", (_error, socket) => socket.destroy());
  }

  get url(): string {
    const host = this.#host.includes(":") ? `[${this.#host}]` : this.#host;
    return `http://${host}:${this.#port}`;
  }

  get port(): number {
    return this.#port;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  aborted(): number {
    return this.#aborted;
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, this.#host, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
    const address = this.#server.address();
    if (!address || typeof address !== "object") throw new Error("fake server has no address");
    this.#port = address.port;
    this.#listening = true;
  }

  setFault(fault: Fault): void {
    const wasRefusing = this.#fault.kind === "refuse";
    this.#fault = fault;
    if (fault.kind === "refuse" && !wasRefusing && !this.#closed) {
      // Stop listening (the port refuses connections) and drop every open connection.
      this.#listening = false;
      this.#server.close();
      for (const socket of this.#sockets) socket.destroy();
    } else if (fault.kind !== "refuse" && wasRefusing && !this.#closed) {
      // listen() on an IP address binds synchronously, so the port accepts again when setFault returns.
      this.#server.listen(this.#port, this.#host);
      this.#listening = true;
    }
    const previous = this.#faultChanged;
    this.#faultChanged = deferred();
    previous.resolve();
  }

  setModels(models: FakeModel[]): void {
    this.#models = models;
  }

  /** Models in memory now (Ollama's /api/ps). */
  get loadedModels(): string[] {
    return [...this.#loaded];
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#faultChanged.resolve();
    const closed = new Promise<void>((resolve) => {
      if (!this.#listening) return resolve();
      this.#server.close(() => resolve());
    });
    for (const socket of this.#sockets) socket.destroy();
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#inFlight++;
    let killed = false;
    const resClosed = new Promise<void>((resolve) => {
      res.once("close", () => {
        this.#inFlight--;
        if (!res.writableFinished && !killed && !this.#closed && this.#fault.kind !== "refuse") this.#aborted++;
        resolve();
      });
    });
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    const path = url.pathname;
    let body: ParsedBody | undefined;
    try {
      body = await readBody(req);
    } catch {
      res.destroy();
      return;
    }
    this.requests.push({
      method,
      path,
      query: url.search,
      headers: { ...req.headers },
      body: body === undefined ? undefined : body.ok ? body.value : body.text,
    });

    // Faults in force when the request arrived (a stall waits for the next fault and applies that one).
    for (;;) {
      const fault = this.#fault;
      if (this.#closed || res.destroyed) return;
      if (!inScope(fault, this.#dialect, path)) break;
      if (fault.kind === "refuse") {
        res.destroy();
        return;
      }
      if (fault.kind === "stall") {
        await Promise.race([this.#faultChanged.promise, resClosed]);
        continue;
      }
      if (fault.kind === "delay") {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, fault.ms))), resClosed]);
        clearTimeout(timer);
        if (res.destroyed) return;
      }
      break;
    }

    const fault = this.#fault;
    const exchange: Exchange = {
      req,
      res,
      method,
      path,
      query: url.searchParams,
      body,
      options: this.#options,
      models: this.#models,
      loaded: this.#loaded,
      addModel: (model) => {
        if (!this.#models.some((known) => known.id === model.id)) this.#models = [...this.#models, model];
      },
      dieAfter: fault.kind === "die-mid-stream" ? Math.max(0, fault.afterChunks) : undefined,
      errorAfter: fault.kind === "stream-error" ? Math.max(0, fault.afterChunks) : undefined,
      kill: () => {
        killed = true;
        // End the socket once what was written is flushed, without the response's end: a truncated body. After this
        // turn: Node's response hands the turn's writes to the socket only at the end of it (it corks the socket until
        // the next tick), and Node 24.22 drops them if the socket is ended before.
        const socket = res.socket;
        if (socket) setImmediate(() => socket.destroySoon());
        else res.destroy();
      },
    };
    if (fault.kind === "status" && inScope(fault, this.#dialect, path)) {
      sendJson(
        { ...exchange, dieAfter: undefined },
        fault.status,
        fault.body ?? this.#dialect.faultBody(fault.status, path),
      );
      return;
    }
    const apiKey = this.#options.apiKey;
    if (apiKey !== undefined) {
      const provided = this.#dialect.credential
        ? this.#dialect.credential(req, url.searchParams)
        : bearerOf(req.headers.authorization);
      if (provided !== apiKey) return this.#dialect.unauthorized(exchange, provided !== undefined);
    }
    const handler = this.#dialect.routes.get(`${method} ${path}`) ?? this.#dialect.route?.(method, path);
    if (!handler) return this.#dialect.notFound(exchange);
    await handler(exchange);
  }
}

export async function startFakeServer(options: FakeLlmOptions, dialect: Dialect): Promise<FakeLlmServer> {
  const server = new FakeServer(options, dialect);
  if (options.port !== undefined) {
    await server.listen(options.port);
    return server;
  }
  // A port outside the ephemeral range (see freePort), since a "refuse" fault listens again on the same port later.
  for (let attempt = 1; ; attempt++) {
    try {
      await server.listen(await freePort(options.host));
      return server;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt === 5) throw error;
    }
  }
}
