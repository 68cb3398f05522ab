import { type AnswerDialect, eventStreamHeaders, isEventStream } from "../../dispatch/answer-dialect.ts";
import { SseNormaliser } from "../../dispatch/sse-normaliser.ts";

/**
 * OpenAI's Responses as an openai backend wrote them, relayed to a client of that API: the stream ends as OpenAI ended
 * it (response.completed; no `[DONE]` is added), a stream that broke off ends with the API's `error` event, and the
 * backend reads the usage (ResponsesUsageReader).
 */
export const RESPONSES_ANSWERS: AnswerDialect = {
  streams: isEventStream,
  framer: () => new SseNormaliser(false),
  streamHeaders: eventStreamHeaders,
  broken: (message) =>
    `event: error\ndata: ${JSON.stringify({ type: "error", code: "server_error", message, param: null })}\n\n`,
  tokens: () => undefined,
};
