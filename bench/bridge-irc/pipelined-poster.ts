// The api -> IRC load generator: bursts of POSTs over a few keep-alive sockets with HTTP/1.1 pipelining. A request is
// written straight into a Buffer from prebuilt bytes (the head up to Content-Length, the body around its sequence
// number), the requests a connection can send at one moment go in one write, and the answers are counted by scanning
// the raw bytes for their heads (status, Content-Length, body skipped) without decoding them into strings. No
// promise or object is made per post. A general-purpose client (undici) and then a string-based poster with a promise
// per post spent 23-67 µs of CPU per message, as much as the bridge itself on this 2-core machine, so the burst
// measured the generator.
import { connect, type Socket } from "node:net";

const HEAD_END = Buffer.from("\r\n\r\n", "latin1");
const CONTENT_LENGTH = Buffer.from("\r\nContent-Length:", "latin1");
const CONTENT_LENGTH_LOWER = Buffer.from("\r\ncontent-length:", "latin1");
const DIGIT_0 = 0x30;
const SPACE = 0x20;

/** A JSON body with the post's sequence number between two fixed parts, e.g. `{"text":"m` + seq + `"}`. */
export interface BodyTemplate {
  before: string;
  after: string;
}

const decimalDigits = (n: number) => (n < 10 ? 1 : Math.floor(Math.log10(n)) + 1);

/** Writes a non-negative integer's decimal digits at `offset`; returns the offset after them. */
function writeDecimal(target: Buffer, offset: number, n: number): number {
  const end = offset + decimalDigits(n);
  let at = end;
  do {
    target[--at] = DIGIT_0 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  return end;
}

/** Prebuilt bytes of one path's requests: only the Content-Length and the sequence number differ between two. */
export class RequestTemplate {
  readonly #head: Buffer;
  readonly #middle: Buffer;
  readonly #after: Buffer;
  readonly #fixedBodyLength: number;

  constructor(host: string, port: number, path: string, body: BodyTemplate) {
    const ascii = /^[\x20-\x7e]*$/;
    if (!ascii.test(body.before) || !ascii.test(body.after) || !ascii.test(path)) {
      throw new Error("a request template takes printable ASCII only (its lengths are counted in characters)");
    }
    this.#head = Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: `,
      "latin1",
    );
    this.#middle = Buffer.from(`\r\n\r\n${body.before}`, "latin1");
    this.#after = Buffer.from(body.after, "latin1");
    this.#fixedBodyLength = body.before.length + body.after.length;
  }

  /** The largest a request with a sequence number below `limit` can be. */
  maxLength(limit: number): number {
    const digits = decimalDigits(limit);
    return (
      this.#head.length +
      decimalDigits(this.#fixedBodyLength + digits) +
      this.#middle.length +
      digits +
      this.#after.length
    );
  }

  /** Writes the request for `seq` at `offset`; returns the offset after it. */
  write(target: Buffer, offset: number, seq: number): number {
    let at = offset + this.#head.copy(target, offset);
    at = writeDecimal(target, at, this.#fixedBodyLength + decimalDigits(seq));
    at += this.#middle.copy(target, at);
    at = writeDecimal(target, at, seq);
    return at + this.#after.copy(target, at);
  }

  /** The request for `seq` as text (for tests). */
  text(seq: number): string {
    const buffer = Buffer.alloc(this.maxLength(seq + 1));
    return buffer.toString("latin1", 0, this.write(buffer, 0, seq));
  }
}

/** What a run of answers held: how many were complete, where the first incomplete one starts, the first refusal. */
export interface AnswerScan {
  answers: number;
  consumed: number;
  /** The first answer that was not a 200 (its status line and body), or undefined. */
  refusal: string | undefined;
}

/** The spelling of Content-Length the last answer used: a server spells it the same way in every answer. */
let usualSpelling = CONTENT_LENGTH_LOWER;

/**
 * Where the head between `start` and `headEnd` has its Content-Length line, or -1. Buffer.indexOf does not stop at
 * the head's end: a spelling the head does not use would be looked for through every answer after it (quadratic in
 * the bytes of one read), so the spelling that matched last is tried first.
 */
function contentLengthAt(data: Buffer, start: number, headEnd: number): number {
  const at = data.indexOf(usualSpelling, start);
  if (at >= 0 && at < headEnd) return at;
  const other = usualSpelling === CONTENT_LENGTH_LOWER ? CONTENT_LENGTH : CONTENT_LENGTH_LOWER;
  const otherAt = data.indexOf(other, start);
  if (otherAt < 0 || otherAt > headEnd) return -1;
  usualSpelling = other;
  return otherAt;
}

/** Counts the complete HTTP/1.1 answers in `data` from their heads' raw bytes; stops at the first that is not a 200. */
export function scanAnswers(data: Buffer): AnswerScan {
  let start = 0;
  let answers = 0;
  for (;;) {
    const headEnd = data.indexOf(HEAD_END, start);
    if (headEnd < 0) break;
    const lengthAt = contentLengthAt(data, start, headEnd);
    let bodyLength = 0;
    if (lengthAt >= 0) {
      let at = lengthAt + CONTENT_LENGTH.length;
      while (data[at] === SPACE) at++;
      for (let digit = (data[at] ?? 0) - DIGIT_0; digit >= 0 && digit <= 9; digit = (data[++at] ?? 0) - DIGIT_0) {
        bodyLength = bodyLength * 10 + digit;
      }
    }
    const end = headEnd + 4 + bodyLength;
    if (data.length < end) break;
    // "HTTP/1.1 200 ": the status code's three digits at 9-11.
    if (data[start + 9] !== 0x32 || data[start + 10] !== DIGIT_0 || data[start + 11] !== DIGIT_0) {
      const statusLine = data.toString("latin1", start, data.indexOf("\r\n", start));
      const body = data.toString("latin1", headEnd + 4, end);
      return { answers, consumed: start, refusal: `${statusLine}: ${body}` };
    }
    if (lengthAt < 0) {
      return { answers, consumed: start, refusal: "a 200 without Content-Length, which this generator cannot frame" };
    }
    answers++;
    start = end;
  }
  return { answers, consumed: start, refusal: undefined };
}

/** The burst a connection is taking part in. */
interface Burst {
  next: number;
  end: number;
  /** Posts of the burst answered 200 so far, on all its connections. */
  answered: number;
  count: number;
  window: number;
  template: RequestTemplate;
  settle(error?: Error): void;
}

/** One keep-alive connection; requests are answered in order, so only how many are outstanding matters. */
class PipelinedConnection {
  readonly #socket: Socket;
  #unanswered = 0;
  #partial: Buffer | undefined;
  #burst: Burst | undefined;
  /** The socket closed: a post can no longer go on this connection. */
  closed = false;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.#read(chunk));
    socket.on("error", (error) => this.#fail(error));
    socket.on("close", () => {
      this.closed = true;
      this.#fail(new Error("the bridge closed a keep-alive connection with posts unanswered"));
    });
  }

  join(burst: Burst): void {
    this.#burst = burst;
    this.#send();
  }

  close(): void {
    this.#socket.destroy();
  }

  /** Sends as many of the burst's posts as the window allows, in one write. */
  #send(): void {
    const burst = this.#burst;
    if (burst === undefined) return;
    const count = Math.min(burst.window - this.#unanswered, burst.end - burst.next);
    if (count <= 0) return;
    const target = Buffer.allocUnsafe(count * burst.template.maxLength(burst.end));
    let length = 0;
    for (let i = 0; i < count; i++) length = burst.template.write(target, length, burst.next++);
    this.#unanswered += count;
    this.#socket.write(target.subarray(0, length));
  }

  #read(chunk: Buffer): void {
    const data = this.#partial === undefined ? chunk : Buffer.concat([this.#partial, chunk]);
    const scan = scanAnswers(data);
    this.#partial = scan.consumed < data.length ? data.subarray(scan.consumed) : undefined;
    this.#unanswered -= scan.answers;
    const burst = this.#burst;
    if (scan.refusal !== undefined) {
      this.#fail(new Error(`POST answered ${scan.refusal}`));
      return;
    }
    if (burst === undefined) {
      if (scan.answers > 0) this.#fail(new Error("answers arrived with no post outstanding"));
      return;
    }
    burst.answered += scan.answers;
    if (burst.answered === burst.count) burst.settle();
    else this.#send();
  }

  #fail(error: Error): void {
    const burst = this.#burst;
    this.#burst = undefined;
    burst?.settle(error);
  }

  leave(): void {
    this.#burst = undefined;
  }
}

export class PipelinedPoster {
  readonly #connections: PipelinedConnection[];
  readonly #template: RequestTemplate;
  readonly #host: string;
  readonly #port: number;

  private constructor(connections: PipelinedConnection[], template: RequestTemplate, host: string, port: number) {
    this.#connections = connections;
    this.#template = template;
    this.#host = host;
    this.#port = port;
  }

  static async open(
    host: string,
    port: number,
    connections: number,
    path: string,
    body: BodyTemplate,
  ): Promise<PipelinedPoster> {
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
      new RequestTemplate(host, port, path, body),
      host,
      port,
    );
  }

  /**
   * Posts the bodies of sequence numbers `first` to `first + count - 1`, at most `inFlight` unanswered at once
   * (spread over the connections); resolves once every one was answered 200, rejects at the first other answer or a
   * connection lost. A connection the bridge closed while it was idle (its IdleTimeout, which main.ts raises: a long
   * burst of another path in between) is opened again; without that, posts written to the closed socket were never
   * answered.
   */
  burst(first: number, count: number, inFlight: number): Promise<void> {
    this.#connections.forEach((connection, index) => {
      if (connection.closed) this.#connections[index] = new PipelinedConnection(connect(this.#port, this.#host));
    });
    const used = this.#connections.slice(0, Math.max(1, Math.min(this.#connections.length, inFlight)));
    return new Promise((resolve, reject) => {
      let settled = false;
      const burst: Burst = {
        next: first,
        end: first + count,
        answered: 0,
        count,
        window: Math.ceil(inFlight / used.length),
        template: this.#template,
        settle: (error) => {
          if (settled) return;
          settled = true;
          for (const connection of used) connection.leave();
          if (error === undefined) resolve();
          else reject(error);
        },
      };
      if (count <= 0) return burst.settle();
      for (const connection of used) connection.join(burst);
    });
  }

  close(): void {
    for (const connection of this.#connections) connection.close();
  }
}
