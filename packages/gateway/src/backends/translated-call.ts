import { thrownMessage } from "@switchboard/common";
import { UpstreamUnreachable } from "./network-errors.ts";
import { type SseEvent, SseEventParser } from "./sse-events.ts";
import type { ResponseSink, UpstreamCall } from "./upstream-call.ts";
import type { TokenUsage } from "./usage.ts";

const EVENT_STREAM = /^text\/event-stream/i;

/** A provider's stream ended badly: an error event, or an end before the provider said it was done. */
export class StreamFailure extends Error {
  override readonly name = "StreamFailure";
}

/** One call's translation from a provider's native answer into OpenAI's format. */
export interface ResponseTranslator {
  /** A non-streaming success body (parsed native JSON) → an OpenAI `chat.completion` as JSON text. */
  response(native: unknown): string;
  /** One native stream event → OpenAI SSE events (`data: {...}\n\n`), or "" when it yields none. May throw StreamFailure. */
  event(event: SseEvent): string;
  /** The native stream ended: the closing OpenAI events (usage chunk, `[DONE]`). Throws StreamFailure when it ended early. */
  finish(): string;
  /** A native error answer → the status to answer with and OpenAI's error envelope as JSON text. */
  error(status: number, body: Buffer): { status: number; body: string };
  /** Tokens the provider reported so far (undefined when it reported none). */
  usage(): TokenUsage | undefined;
}

/**
 * Sits between the HTTP call to a provider and the dispatch's sink: everything dispatch sees is already OpenAI's
 * format, so dispatch handles translated and pass-through backends alike. Streams are translated event by event as
 * they arrive (nothing is held back but a partial event); other answers are read in full, then translated.
 */
export class TranslatingSink implements ResponseSink {
  readonly #out: ResponseSink;
  readonly #translator: ResponseTranslator;
  readonly #stream: boolean;
  readonly #onSettled: (usage: TokenUsage | undefined) => void;
  readonly #secret: string | undefined;
  #status = 0;
  #mode: "buffer" | "stream" = "buffer";
  #parser: SseEventParser | undefined;
  #chunks: Buffer[] = [];
  #settled = false;

  constructor(options: {
    out: ResponseSink;
    translator: ResponseTranslator;
    stream: boolean;
    /** Called once when the call is over, however it ended, with the usage known by then. */
    onSettled: (usage: TokenUsage | undefined) => void;
    /** Never echoed to the client: removed from translated error messages. */
    secret: string | undefined;
  }) {
    this.#out = options.out;
    this.#translator = options.translator;
    this.#stream = options.stream;
    this.#onSettled = options.onSettled;
    this.#secret = options.secret;
  }

  start(statusCode: number, contentType: string): void {
    this.#status = statusCode;
    if (statusCode === 200 && this.#stream && EVENT_STREAM.test(contentType)) {
      this.#mode = "stream";
      this.#parser = new SseEventParser();
      this.#out.start(200, "text/event-stream");
    }
  }

  data(chunk: Buffer): void {
    if (this.#settled) return;
    if (this.#mode === "buffer") {
      this.#chunks.push(chunk);
      return;
    }
    this.#emit(this.#parser!.push(chunk));
  }

  end(): void {
    if (this.#settled) return;
    if (this.#mode === "stream") {
      if (!this.#emit(this.#parser!.finish())) return;
      let tail: string;
      try {
        tail = this.#translator.finish();
      } catch (error) {
        this.#fail(error);
        return;
      }
      if (tail !== "") this.#out.data(Buffer.from(tail));
      this.#settle();
      this.#out.end();
      return;
    }
    const body = Buffer.concat(this.#chunks);
    this.#chunks = [];
    if (this.#status !== 200) {
      const mapped = this.#translator.error(this.#status, body);
      this.#answer(mapped.status, this.#redact(mapped.body));
      return;
    }
    let text: string;
    try {
      text = this.#translator.response(JSON.parse(body.toString("utf8")));
    } catch {
      // The provider's fault: a 502 fails over to the next backend.
      const envelope = {
        error: {
          message: "The backend answered a body that could not be translated",
          type: "server_error",
          param: null,
          code: "bad_backend_response",
        },
      };
      this.#answer(502, JSON.stringify(envelope));
      return;
    }
    this.#answer(200, text);
  }

  error(error: Error): void {
    if (this.#settled) return;
    this.#settle();
    this.#out.error(error);
  }

  /** Translates and forwards events; false once the stream failed. */
  #emit(events: SseEvent[]): boolean {
    if (events.length === 0) return true;
    let text = "";
    try {
      for (const event of events) text += this.#translator.event(event);
    } catch (error) {
      if (text !== "") this.#out.data(Buffer.from(text));
      this.#fail(error);
      return false;
    }
    if (text !== "") this.#out.data(Buffer.from(text));
    return true;
  }

  #fail(error: unknown): void {
    const message =
      error instanceof StreamFailure ? error.message : `stream translation failed: ${thrownMessage(error)}`;
    this.#settle();
    // Before anything reached the client this fails over; after, the client gets an error event and [DONE].
    this.#out.error(new UpstreamUnreachable(this.#redact(message), false));
  }

  #answer(status: number, body: string): void {
    this.#settle();
    this.#out.start(status, "application/json");
    this.#out.data(Buffer.from(body));
    this.#out.end();
  }

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#onSettled(this.#translator.usage());
  }

  #redact(text: string): string {
    return this.#secret && text.includes(this.#secret) ? text.split(this.#secret).join("[redacted]") : text;
  }
}

/** Answers a call without contacting the provider (a request the translation refused), as a provider would. */
export function answerLocally(sink: ResponseSink, status: number, envelope: unknown): UpstreamCall {
  const call = { aborted: false, abort() {}, pause() {}, resume() {} };
  queueMicrotask(() => {
    sink.start(status, "application/json");
    sink.data(Buffer.from(JSON.stringify(envelope)));
    sink.end();
  });
  return call;
}
