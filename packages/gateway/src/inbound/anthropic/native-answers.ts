import { type AnswerDialect, eventStreamHeaders, isEventStream } from "../../dispatch/answer-dialect.ts";
import { SseNormaliser } from "../../dispatch/sse-normaliser.ts";
import { anthropicErrorEvent } from "./errors.ts";

/**
 * Anthropic's Messages as an anthropic backend wrote them, relayed to a client of that API: the stream ends as the
 * provider ended it (message_stop; nothing is added), a stream that broke off ends with Anthropic's error event, and
 * the backend reads the usage (NativeUsageTap).
 */
export const ANTHROPIC_ANSWERS: AnswerDialect = {
  streams: isEventStream,
  framer: () => new SseNormaliser(false),
  streamHeaders: eventStreamHeaders,
  broken: (message) => anthropicErrorEvent("api_error", message),
  tokens: () => undefined,
};
