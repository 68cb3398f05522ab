import type { OutgoingHttpHeaders } from "node:http";
import { type PreparedHeaders, thrownMessage } from "@switchboard/common";
import { UpstreamUnreachable } from "../backends/network-errors.ts";
import type { CallIds, EmbeddingsCall } from "../backends/types.ts";
import type { BackendState } from "../fleet/backend-state.ts";
import { writeAnswerHead } from "./answer-head.ts";
import { type AnswerTokens, answerTokens } from "./answer-tokens.ts";
import type { AnswerWriter } from "./answer-writer.ts";
import type { Attempt, AttemptResult } from "./attempt.ts";
import { isBackendFault } from "./failure.ts";

/** One embeddings request to one backend: the backend answers in full, then the body is relayed (or failed over). */
export class EmbeddingsAttempt implements Attempt {
  readonly done: Promise<AttemptResult>;
  firstByteAt: number | undefined;
  tokens: AnswerTokens | undefined;
  readonly #controller = new AbortController();

  constructor(
    state: BackendState,
    call: EmbeddingsCall,
    ids: CallIds,
    { headers, prepared }: { headers: OutgoingHttpHeaders; prepared?: PreparedHeaders },
    res: AnswerWriter,
  ) {
    this.done = this.#run(state, call, ids, headers, prepared, res);
  }

  abort(): void {
    this.#controller.abort();
  }

  async #run(
    state: BackendState,
    call: EmbeddingsCall,
    ids: CallIds,
    headers: OutgoingHttpHeaders,
    prepared: PreparedHeaders | undefined,
    res: AnswerWriter,
  ): Promise<AttemptResult> {
    const signal = this.#controller.signal;
    try {
      const reply = await state.backend.embeddings(call, ids, signal);
      if (signal.aborted || res.destroyed) return { kind: "gone" };
      if (isBackendFault(reply.statusCode)) {
        return {
          kind: "failed",
          failure: { kind: "status", backend: state.name, ...reply },
          markUnhealthy: reply.statusCode !== 429,
        };
      }
      if (reply.statusCode < 400) this.tokens = answerTokens(reply.body);
      headers["content-type"] = reply.contentType;
      headers["content-length"] = reply.body.length;
      this.firstByteAt = performance.now();
      writeAnswerHead(res, reply.statusCode, headers, prepared);
      res.end(reply.body);
      return { kind: "answered", status: reply.statusCode, ok: reply.statusCode < 400 };
    } catch (error) {
      if (signal.aborted) return { kind: "gone" };
      const message = thrownMessage(error);
      return {
        kind: "failed",
        failure: {
          kind: "unreachable",
          backend: state.name,
          message,
          timedOut: error instanceof UpstreamUnreachable && error.timedOut,
        },
        markUnhealthy: true,
      };
    }
  }
}
