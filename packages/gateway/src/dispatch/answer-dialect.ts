import type { OutgoingHttpHeaders } from "node:http";
import { type AnswerTokens, answerTokens } from "./answer-tokens.ts";
import { SseNormaliser, streamErrorEvent } from "./sse-normaliser.ts";
import type { StreamFramer } from "./stream-framer.ts";

const EVENT_STREAM = /^text\/event-stream/i;

/**
 * What a relayed answer looks like in the API its backend speaks: which answers are streams and how they are framed,
 * what ends a stream that broke, where its token counts are. OpenAI's for every backend; another API's own when a
 * backend that speaks it answers a client of that API as is (Anthropic's Messages, Ollama's chat and generate).
 */
export interface AnswerDialect {
  /** Whether a 200 answer of this content type is a stream (relayed as it arrives, once asked for). */
  streams(contentType: string): boolean;
  framer(): StreamFramer;
  /** Sets a stream answer's content headers in the attempt's own headers object. */
  streamHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders;
  /** The event that ends a stream that broke after it began. */
  broken(message: string): string;
  /** The token counts reported in a run of events or a whole body, if any (else the backend reports them). */
  tokens(text: Buffer | string): AnswerTokens | undefined;
}

/** The event-stream headers, for every dialect that streams server-sent events. */
export function eventStreamHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  headers["content-type"] = "text/event-stream; charset=utf-8";
  headers["cache-control"] = "no-cache";
  headers["x-accel-buffering"] = "no";
  return headers;
}

export const isEventStream = (contentType: string): boolean => EVENT_STREAM.test(contentType);

export const OPENAI_ANSWERS: AnswerDialect = {
  streams: isEventStream,
  // An OpenAI stream ends with `data: [DONE]`, added when a backend left it out.
  framer: () => new SseNormaliser(true),
  streamHeaders: eventStreamHeaders,
  broken: (message) => streamErrorEvent(message),
  tokens: answerTokens,
};
