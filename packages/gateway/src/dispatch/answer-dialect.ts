import { type AnswerTokens, answerTokens } from "./answer-tokens.ts";
import { type SseNormaliser, streamErrorEvent } from "./sse-normaliser.ts";

/**
 * What a relayed answer looks like in the API its backend speaks: how its stream ends, what ends a stream that broke,
 * where its token counts are. OpenAI's for every backend; another API's own when a backend that speaks it answers a
 * client of that API as is (Anthropic's Messages).
 */
export interface AnswerDialect {
  /** The end of a stream that ended cleanly: its last events, and the API's closing event if the backend left it out. */
  end(stream: SseNormaliser): string;
  /** The event that ends a stream that broke after it began. */
  broken(message: string): string;
  /** The token counts reported in a run of events or a whole body, if any (else the backend reports them). */
  tokens(text: Buffer | string): AnswerTokens | undefined;
}

export const OPENAI_ANSWERS: AnswerDialect = {
  end: (stream) => stream.finish(),
  broken: (message) => streamErrorEvent(message),
  tokens: answerTokens,
};
