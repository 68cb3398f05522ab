// The api -> IRC load generator: POSTs over a few keep-alive sockets with HTTP/1.1 pipelining, the requests of one
// turn written together, the answers read with a minimal parser (status line, Content-Length, body skipped). A
// general-purpose client (undici) spent as much CPU per message as the bridge itself on this 2-core machine, so the
// burst measured the generator; this one costs a few µs per message and leaves the CPU to the bridge.
import { connect, type Socket } from "node:net";

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** One keep-alive connection: requests are answered in order, so the waiters are a FIFO. */
class PipelinedConnection {
  readonly #socket: Socket;
  readonly #waiters: Waiter[] = [];
  #head = 0;
  #pending = "";
  #flushScheduled = false;
  #outgoing: string[] = [];
  /** The socket closed: a post can no longer go on this connection. */
  closed = false;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => this.#read(chunk));
    socket.on("error", (error) => this.#failAll(error));
    socket.on("close", () => {
      this.closed = true;
      this.#failAll(new Error("the bridge closed a keep-alive connection with posts unanswered"));
    });
  }

  get inFlight(): number {
    return this.#waiters.length - this.#head;
  }

  post(request: string): Promise<void> {
    this.#outgoing.push(request);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // Every request queued during this turn goes in one write.
      setImmediate(() => {
        this.#flushScheduled = false;
        const batch = this.#outgoing.join("");
        this.#outgoing = [];
        this.#socket.write(batch, "latin1");
      });
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  close(): void {
    this.#socket.destroy();
  }

  #read(chunk: string): void {
    const data = this.#pending + chunk;
    let start = 0;
    for (;;) {
      const headEnd = data.indexOf("\r\n\r\n", start);
      if (headEnd < 0) break;
      const head = data.slice(start, headEnd).toLowerCase();
      const lengthAt = head.indexOf("\r\ncontent-length:");
      const length = lengthAt < 0 ? 0 : Number.parseInt(head.slice(lengthAt + 17), 10);
      const end = headEnd + 4 + length;
      if (data.length < end) break;
      const status = head.slice(9, 12);
      const waiter = this.#waiters[this.#head++];
      if (status === "200") waiter?.resolve();
      else waiter?.reject(new Error(`POST answered ${status}: ${data.slice(headEnd + 4, end)}`));
      start = end;
    }
    this.#pending = data.slice(start);
    if (this.#head > 1024) {
      this.#waiters.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #failAll(error: Error): void {
    for (const waiter of this.#waiters.splice(this.#head)) waiter.reject(error);
    this.#waiters.length = 0;
    this.#head = 0;
  }
}

export class PipelinedPoster {
  readonly #connections: PipelinedConnection[];
  readonly #host: string;
  readonly #port: number;
  #next = 0;

  private constructor(connections: PipelinedConnection[], host: string, port: number) {
    this.#connections = connections;
    this.#host = host;
    this.#port = port;
  }

  static async open(host: string, port: number, connections: number): Promise<PipelinedPoster> {
    const sockets = await Promise.all(
      Array.from(
        { length: connections },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect({ host, port }, () => resolve(socket));
            socket.once("error", reject);
          }),
      ),
    );
    return new PipelinedPoster(
      sockets.map((socket) => new PipelinedConnection(socket)),
      host,
      port,
    );
  }

  /**
   * POSTs a JSON body to `path` on the connection with the fewest answers outstanding; resolves on a 200. A
   * connection the bridge closed while it was idle (its IdleTimeout, which main.ts raises: a long burst of another
   * path in between) is opened again; without that, posts written to the closed socket were never answered.
   */
  post(path: string, json: string): Promise<void> {
    this.#connections.forEach((connection, index) => {
      if (connection.closed) this.#connections[index] = new PipelinedConnection(connect(this.#port, this.#host));
    });
    let best = this.#connections[this.#next] as PipelinedConnection;
    for (const connection of this.#connections) if (connection.inFlight < best.inFlight) best = connection;
    this.#next = (this.#next + 1) % this.#connections.length;
    return best.post(
      `POST ${path} HTTP/1.1\r\nHost: ${this.#host}:${this.#port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
    );
  }

  close(): void {
    for (const connection of this.#connections) connection.close();
  }
}
