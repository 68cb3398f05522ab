import type { AnswerTokens } from "./answer-tokens.ts";
import type { AttemptFailure } from "./failure.ts";

/**
 * How an attempt ended: the client was answered (or left), or the backend failed before the first byte (the pipeline
 * then fails over).
 */
export type AttemptResult =
  | { kind: "answered"; status: number; ok: boolean; brokenStream?: string }
  | { kind: "gone" }
  | { kind: "failed"; failure: AttemptFailure; markUnhealthy: boolean };

/**
 * One request to one backend, as the pipeline drives it. Each endpoint provides its own (chat relays a stream or a
 * body, embeddings a translated body); the pipeline only starts, awaits, aborts and accounts for them.
 */
export interface Attempt {
  readonly done: Promise<AttemptResult>;
  /** Stops the upstream request at once (the client went away, or the gateway is cutting requests). */
  abort(): void;
  /** performance.now() when the first byte was relayed to the client, if it was. */
  readonly firstByteAt: number | undefined;
  /** Tokens the answer relayed to the client reported (its `usage`), if it did. */
  readonly tokens: AnswerTokens | undefined;
}
