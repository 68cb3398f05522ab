import { type AnswerDialect, eventStreamHeaders, isEventStream } from "../../dispatch/answer-dialect.ts";
import { SseNormaliser } from "../../dispatch/sse-normaliser.ts";
import { geminiStreamError } from "./errors.ts";

/**
 * Gemini's answers as a google backend wrote them, relayed to a client of that API: an alt=sse stream ends as Google
 * ended it (nothing is added), a stream that broke off ends with an error response, and the backend reads the usage
 * (NativeUsageTap). A stream asked for without alt=sse is a JSON array, relayed whole.
 */
export const GEMINI_ANSWERS: AnswerDialect = {
  streams: isEventStream,
  framer: () => new SseNormaliser(false),
  streamHeaders: eventStreamHeaders,
  broken: (message) => geminiStreamError(message, true),
  tokens: () => undefined,
};
