import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { AnswerWriter } from "../dispatch/answer-writer.ts";
import { ApiError, type ErrorEnvelope } from "../request/errors.ts";
import { ChunkReader, errorOfBody, type OpenAiCompletion, type StreamTranslator } from "./openai-answer.ts";

const EVENT_STREAM = /^text\/event-stream/i;
const JSON_TYPE = "application/json; charset=utf-8";

/** One inbound API's answer format, for one request; `Body` is the OpenAI body it reads (a chat completion). */
export interface AnswerFormat<Body = OpenAiCompletion> {
  /** The content type of a streamed answer (text/event-stream, application/x-ndjson). */
  readonly streamType: string;
  /** A translator for a streamed answer (none for answers that never stream: embeddings). */
  stream?(): StreamTranslator;
  /** A whole answer: the inbound API's body. */
  completion(body: Body): unknown;
  /** Its error envelope. */
  readonly envelope: ErrorEnvelope;
}

/**
 * The AnswerWriter of an inbound API: the attempt writes OpenAI's answer, the client receives its own API's. A stream
 * is translated event by event as it is written (nothing held back); a body once whole. The X-Gateway-* headers the
 * attempt sets go out as they are.
 */
export class TranslatingWriter<Body = OpenAiCompletion> implements AnswerWriter {
  readonly #res: ServerResponse;
  readonly #format: AnswerFormat<Body>;
  readonly #model: string;
  readonly #wantsStream: boolean;
  #began = false;
  #reader: ChunkReader | undefined;
  #status = 0;
  #headers: OutgoingHttpHeaders = {};
  #chunks: Buffer[] = [];

  constructor(res: ServerResponse, format: AnswerFormat<Body>, model: string, wantsStream: boolean) {
    this.#res = res;
    this.#format = format;
    this.#model = model;
    this.#wantsStream = wantsStream;
  }

  get headersSent(): boolean {
    return this.#began || this.#res.headersSent;
  }

  get destroyed(): boolean {
    return this.#res.destroyed;
  }

  get writableEnded(): boolean {
    return this.#res.writableEnded;
  }

  writeHead(statusCode: number, headers: OutgoingHttpHeaders): this {
    this.#began = true;
    this.#status = statusCode;
    this.#headers = headers;
    const stream = this.#format.stream;
    if (stream !== undefined && statusCode === 200 && EVENT_STREAM.test(String(headers["content-type"] ?? ""))) {
      this.#reader = new ChunkReader(stream(), this.#model);
      headers["content-type"] = this.#format.streamType;
      this.#res.writeHead(200, headers);
    }
    return this;
  }

  write(chunk: string | Buffer): boolean {
    if (this.#reader === undefined) {
      this.#chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      return true;
    }
    const out = this.#reader.push(chunk);
    return out === "" || this.#res.write(out);
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    if (this.#reader !== undefined) this.#res.end(this.#reader.finish());
    else this.#answerBody(Buffer.concat(this.#chunks));
    return this;
  }

  once(event: "drain", listener: () => void): this {
    this.#res.once(event, listener);
    return this;
  }

  #answerBody(body: Buffer): void {
    const res = this.#res;
    const headers = this.#headers;
    if (this.#status >= 400) {
      const { message, type, code } = errorOfBody(body);
      const error = new ApiError(this.#status, message, type ?? "invalid_request_error", code ?? null);
      const { status, body: envelope } = this.#format.envelope(error);
      this.#send(status, JSON.stringify(envelope));
      return;
    }
    let completion: Body;
    try {
      completion = JSON.parse(body.toString("utf8")) as Body;
    } catch {
      const error = new ApiError(
        502,
        "The backend answered a body that is not JSON",
        "server_error",
        "bad_backend_response",
      );
      const { status, body: envelope } = this.#format.envelope(error);
      this.#send(status, JSON.stringify(envelope));
      return;
    }
    const stream = this.#format.stream;
    if (this.#wantsStream && stream !== undefined) {
      // The backend answered a stream request with one body: the client still gets the stream it asked for.
      const reader = new ChunkReader(stream(), this.#model);
      headers["content-type"] = this.#format.streamType;
      delete headers["content-length"];
      res.writeHead(200, headers);
      res.end(reader.replay(completion as OpenAiCompletion));
      return;
    }
    this.#send(this.#status, JSON.stringify(this.#format.completion(completion)));
  }

  #send(status: number, text: string): void {
    const headers = this.#headers;
    headers["content-type"] = JSON_TYPE;
    headers["content-length"] = Buffer.byteLength(text);
    this.#res.writeHead(status, headers);
    this.#res.end(text);
  }
}
