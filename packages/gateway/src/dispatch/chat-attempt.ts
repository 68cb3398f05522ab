import type { OutgoingHttpHeaders } from "node:http";
import type { PreparedHeaders } from "@switchboard/common";
import { UpstreamUnreachable } from "../backends/network-errors.ts";
import type { UpstreamCall } from "../backends/upstream-call.ts";
import type { TokenUsage } from "../backends/usage.ts";
import type { AnswerDialect } from "./answer-dialect.ts";
import { writeAnswerHead } from "./answer-head.ts";
import type { AnswerTokens } from "./answer-tokens.ts";
import type { AnswerWriter } from "./answer-writer.ts";
import type { Attempt, AttemptResult } from "./attempt.ts";
import { type AttemptFailure, isBackendFault } from "./failure.ts";
import type { StreamFramer } from "./stream-framer.ts";

export interface AttemptOptions {
  backend: string;
  stream: boolean;
  /** This answer's own headers (the attempt adds its content headers). */
  headers: OutgoingHttpHeaders;
  /** Lines that come first, the same for every answer of this backend (route-headers.ts). */
  prepared?: PreparedHeaders;
  /** The client's response, or an inbound adapter's writer in front of it. */
  res: AnswerWriter;
  /** The API the answer is in: OpenAI's, or the client's own when its backend speaks it. */
  dialect: AnswerDialect;
}

/**
 * One attempt's response handling, fed by undici's dispatch callbacks. Nothing reaches the client before the backend
 * gave a usable answer: a non-streaming body is read in full, a stream starts at its first complete event. So any
 * failure before that can fail over. The bodies of backend faults (5xx, 429, 401/403) are kept for the error report,
 * never relayed.
 */
export class ChatAttempt implements Attempt {
  readonly done: Promise<AttemptResult>;
  call: UpstreamCall | undefined;
  firstByteAt: number | undefined;
  tokens: AnswerTokens | undefined;
  #resolve!: (result: AttemptResult) => void;
  #status = 0;
  #contentType = "";
  #mode: "fail" | "buffer" | "stream" = "buffer";
  #chunks: Buffer[] = [];
  #length = 0;
  #framer: StreamFramer | undefined;
  #started = false;
  #waitingForDrain = false;
  /**
   * Stream events complete but not written yet: what one read from the backend brought is written once, at the end of
   * that turn (a microtask), so that the stream's last events and its end leave in one write, not two.
   */
  #unsent: Buffer | string | undefined;
  #flushQueued = false;
  readonly #dialect: AnswerDialect;

  constructor(private readonly options: AttemptOptions) {
    this.#dialect = options.dialect;
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  abort(): void {
    this.call?.abort();
  }

  start(statusCode: number, contentType: string): void {
    this.#status = statusCode;
    this.#contentType = contentType;
    if (isBackendFault(statusCode)) this.#mode = "fail";
    else if (statusCode === 200 && this.options.stream && this.#dialect.streams(contentType)) {
      this.#mode = "stream";
      this.#framer = this.#dialect.framer();
    } else this.#mode = "buffer";
  }

  data(chunk: Buffer): void {
    if (this.#mode !== "stream") {
      this.#chunks.push(chunk);
      this.#length += chunk.length;
      return;
    }
    const events = this.#framer!.push(chunk);
    if (events.length === 0 || this.options.res.destroyed) return;
    this.#unsent = this.#unsent === undefined ? events : joinEvents(this.#unsent, events);
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      queueMicrotask(this.#flush);
    }
  }

  /** Writes the events held in this turn, unless the stream's end took them. */
  readonly #flush = (): void => {
    this.#flushQueued = false;
    const events = this.#unsent;
    if (events === undefined) return;
    this.#unsent = undefined;
    this.#write(events);
  };

  #write(events: Buffer | string): void {
    const res = this.options.res;
    if (res.destroyed) return;
    if (!this.#started) {
      this.#started = true;
      this.firstByteAt = performance.now();
      writeAnswerHead(res, 200, this.#dialect.streamHeaders(this.options.headers), this.options.prepared);
    }
    const room = res.write(events);
    // Read after the write, off the way to the client: the usage chunk (stream_options.include_usage, or always from
    // some servers) comes last; keep the latest seen.
    this.tokens = this.#dialect.tokens(events) ?? this.tokens;
    if (!room && !this.#waitingForDrain) {
      this.#waitingForDrain = true;
      this.call?.pause();
      res.once("drain", () => {
        this.#waitingForDrain = false;
        this.call?.resume();
      });
    }
  }

  end(): void {
    const { res, headers, prepared, backend } = this.options;
    if (res.destroyed) {
      this.#resolve({ kind: "gone" });
      return;
    }
    if (this.#mode === "stream") {
      if (!this.#started) {
        this.firstByteAt = performance.now();
        writeAnswerHead(res, 200, this.#dialect.streamHeaders(headers), prepared);
      }
      const unsent = this.#unsent;
      this.#unsent = undefined;
      if (unsent === undefined) res.end(this.#framer!.finish());
      else {
        res.end(joinEvents(unsent, this.#framer!.finish()));
        this.tokens = this.#dialect.tokens(unsent) ?? this.tokens;
      }
      this.#resolve({ kind: "answered", status: 200, ok: true });
      return;
    }
    const body = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#length);
    if (this.#mode === "fail") {
      const failure: AttemptFailure = {
        kind: "status",
        backend,
        statusCode: this.#status,
        contentType: this.#contentType,
        body,
      };
      this.#resolve({ kind: "failed", failure, markUnhealthy: this.#status !== 429 });
      return;
    }
    // Success, or a 4xx that is the client's fault: relayed as it is, and its usage read once it is on its way.
    headers["content-type"] = this.#contentType;
    headers["content-length"] = body.length;
    this.firstByteAt = performance.now();
    writeAnswerHead(res, this.#status, headers, prepared);
    res.end(body);
    if (this.#status < 400) this.tokens = this.#dialect.tokens(body) ?? this.tokens;
    this.#resolve({ kind: "answered", status: this.#status, ok: this.#status < 400 });
  }

  /** The provider's usage, read by a backend that relays an answer in another API's format. */
  usage(usage: TokenUsage): void {
    const promptTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    this.tokens = { promptTokens, completionTokens: usage.outputTokens };
  }

  error(error: Error): void {
    const { res, backend } = this.options;
    if (this.call?.aborted || res.destroyed) {
      this.#resolve({ kind: "gone" });
      return;
    }
    // Events that arrived before the failure are relayed first: the stream began, it does not fail over.
    this.#flush();
    if (this.#started) {
      res.end(this.#dialect.broken(`The backend stream broke off: ${error.message}`));
      this.#resolve({ kind: "answered", status: 200, ok: false, brokenStream: error.message });
      return;
    }
    const timedOut = error instanceof UpstreamUnreachable && error.timedOut;
    this.#resolve({
      kind: "failed",
      failure: { kind: "unreachable", backend, message: error.message, timedOut },
      markUnhealthy: true,
    });
  }
}

/** Two runs of complete events as one (a string when both are, else bytes). */
function joinEvents(first: Buffer | string, second: Buffer | string): Buffer | string {
  if (second.length === 0) return first;
  if (typeof first === "string" && typeof second === "string") return first + second;
  const bytes = (events: Buffer | string) => (typeof events === "string" ? Buffer.from(events) : events);
  return Buffer.concat([bytes(first), bytes(second)]);
}
