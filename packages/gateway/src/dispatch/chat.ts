import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { BackendState } from "../fleet/backend-state.ts";
import type { Registry } from "../fleet/registry.ts";
import { ApiError } from "../http/errors.ts";
import type { RequestFacts } from "../http/request-log.ts";
import type { RouteReason, Target } from "../routing/types.ts";
import { ChatAttempt } from "./chat-attempt.ts";
import { type AttemptFailure, describeFailure, sendApiError, sendAttemptsFailed } from "./failure.ts";
import { bodyWithModel } from "./rewrite-body.ts";
import { routeHeaders } from "./route-headers.ts";
import { SHUTTING_DOWN_MESSAGE, ShutdownSignal, shuttingDown } from "./shutdown.ts";
import { streamErrorEvent } from "./sse-normaliser.ts";

export interface ChatJob {
  requestId: string;
  /** Filled in with the backend that answered, for the request's log line. */
  facts?: RequestFacts;
  /** The parsed client body, and the bytes it came from (forwarded as is when the model name is unchanged). */
  body: Record<string, unknown>;
  raw: Buffer;
  stream: boolean;
  targets: readonly Target<BackendState>[];
  reason: RouteReason;
  estimatedTokens: number;
  maxTokens: number | undefined;
}

/** Executes a chat decision: tries the targets in order, failing over before the first byte, and relays the answer. */
export class ChatDispatcher {
  constructor(
    private readonly registry: Registry,
    private readonly maxAttempts: number,
    private readonly logger: Logger,
    private readonly shutdown: ShutdownSignal = new ShutdownSignal(),
  ) {}

  run(job: ChatJob, res: ServerResponse): Promise<void> {
    let current: ChatAttempt | undefined;
    const state = { gone: false };
    // Past the shutdown grace period: a stream ends with an error event and [DONE], anything else gets a 503.
    const cut = () => {
      if (res.writableEnded || res.destroyed) return;
      this.shutdown.countCut();
      state.gone = true;
      current?.call?.abort();
      if (res.headersSent) res.end(streamErrorEvent(SHUTTING_DOWN_MESSAGE, "shutting_down"));
      else sendApiError(res, shuttingDown(), job.requestId);
    };
    return this.shutdown.guard(
      () =>
        this.#run(job, res, state, (attempt) => {
          current = attempt;
        }),
      cut,
    );
  }

  async #run(
    job: ChatJob,
    res: ServerResponse,
    cutState: { gone: boolean },
    setCurrent: (attempt: ChatAttempt) => void,
  ): Promise<void> {
    let current: ChatAttempt | undefined;
    let gone = false;
    res.once("close", () => {
      if (res.writableFinished) return;
      gone = true;
      current?.call?.abort();
    });
    const failures: AttemptFailure[] = [];
    const attempts = Math.min(job.targets.length, this.maxAttempts);
    for (let index = 0; index < attempts && !gone && !cutState.gone; index++) {
      const target = job.targets[index]!;
      const state = target.backend;
      const headers = routeHeaders(
        target,
        index > 0 ? "failover" : job.reason,
        job.requestId,
        job.estimatedTokens,
        job.maxTokens,
      );
      const attempt = new ChatAttempt({ backend: state.name, stream: job.stream, headers, res });
      current = attempt;
      setCurrent(attempt);
      let body: Buffer | string;
      try {
        body = bodyWithModel(job.body, job.raw, target.model);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        sendApiError(res, error, job.requestId);
        return;
      }
      const started = performance.now();
      state.pending++;
      // The backend tried last is the one the request's log line names (the answer may be written before we resume).
      if (job.facts) job.facts.backend = state.name;
      attempt.call = state.backend.chat(body, job.requestId, attempt);
      const result = await attempt.done;
      state.pending--;
      state.recordRequest(
        performance.now() - started,
        result.kind === "gone" ? "client_abort" : result.kind === "answered" && result.ok ? "ok" : "error",
      );
      if (result.kind === "gone") return;
      if (result.kind === "answered") {
        if (result.brokenStream) this.registry.failed(state, result.brokenStream);
        if (this.logger.isLevelEnabled("debug")) {
          this.logger.debug(
            { requestId: job.requestId, backend: state.name, model: target.model, stream: job.stream, ok: result.ok },
            "chat completion relayed",
          );
        }
        return;
      }
      if (result.markUnhealthy) this.registry.failed(state, describeFailure(result.failure));
      failures.push(result.failure);
      this.logger.warn(
        { requestId: job.requestId, backend: state.name },
        `attempt failed: ${describeFailure(result.failure)}`,
      );
    }
    if (!gone && !cutState.gone && !res.headersSent) sendAttemptsFailed(res, failures, job.requestId);
  }
}
