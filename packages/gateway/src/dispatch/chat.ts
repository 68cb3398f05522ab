import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import { UpstreamUnreachable } from "../backends/types.ts";
import type { BackendState } from "../fleet/backend-state.ts";
import type { Registry } from "../fleet/registry.ts";
import type { RouteReason, Target } from "../routing/types.ts";
import { type AttemptFailure, describeFailure, sendAttemptsFailed } from "./failure.ts";
import { readAll, readQuietly } from "./read-body.ts";
import { routeHeaders } from "./route-headers.ts";
import { relayStream } from "./stream-relay.ts";

export interface ChatJob {
  requestId: string;
  /** The parsed client body, and the bytes it came from (forwarded as is when the model name is unchanged). */
  body: Record<string, unknown>;
  raw: Buffer;
  stream: boolean;
  targets: readonly Target<BackendState>[];
  reason: RouteReason;
  estimatedTokens: number;
  maxTokens: number | undefined;
}

const EVENT_STREAM = /^text\/event-stream/i;

/** Executes a chat decision: tries the targets in order, failing over before the first byte, and relays the answer. */
export class ChatDispatcher {
  constructor(
    private readonly registry: Registry,
    private readonly maxAttempts: number,
    private readonly logger: Logger,
  ) {}

  async run(job: ChatJob, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    const { signal } = controller;
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const failures: AttemptFailure[] = [];
    const attempts = job.targets.slice(0, this.maxAttempts);
    for (let index = 0; index < attempts.length; index++) {
      if (signal.aborted) return;
      const target = attempts[index]!;
      const state = target.backend;
      const reason: RouteReason = index > 0 ? "failover" : job.reason;
      const failure = await this.#attempt(job, target, reason, res, signal);
      if (failure === undefined) return;
      failures.push(failure);
      this.logger.warn(
        { requestId: job.requestId, backend: state.name },
        `attempt failed: ${describeFailure(failure)}`,
      );
    }
    if (!signal.aborted && !res.headersSent) sendAttemptsFailed(res, failures, job.requestId);
  }

  /** One attempt on one backend; resolves undefined when the client got its answer (or left). */
  async #attempt(
    job: ChatJob,
    target: Target<BackendState>,
    reason: RouteReason,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<AttemptFailure | undefined> {
    const state = target.backend;
    const started = performance.now();
    state.pending++;
    let ok = false;
    try {
      let response: Awaited<ReturnType<typeof state.backend.chat>>;
      try {
        response = await state.backend.chat(this.#bodyFor(job, target.model), job.requestId, signal);
      } catch (error) {
        if (signal.aborted) return undefined;
        return this.#unreachable(state, error);
      }
      const status = response.statusCode;
      if (status >= 500 || status === 429) {
        const body = await readQuietly(response.body);
        if (status >= 500) this.registry.failed(state, `HTTP ${status}`);
        return { kind: "status", backend: state.name, statusCode: status, contentType: response.contentType, body };
      }
      const headers = routeHeaders(target, reason, job.requestId, job.estimatedTokens, job.maxTokens);
      if (status === 200 && job.stream && EVENT_STREAM.test(response.contentType)) {
        const outcome = await relayStream(response.body, res, headers, signal);
        if (outcome.kind === "failed-before-start")
          return this.#unreachable(state, new UpstreamUnreachable(outcome.message, false));
        if (outcome.kind === "failed-after-start") this.registry.failed(state, outcome.message);
        ok = outcome.kind === "ok";
        return undefined;
      }
      let body: Buffer;
      try {
        body = await readAll(response.body);
      } catch (error) {
        if (signal.aborted) return undefined;
        return this.#unreachable(state, error);
      }
      // A 4xx is the client's fault: relayed as it is, like a success.
      headers["content-type"] = response.contentType;
      headers["content-length"] = body.length;
      res.writeHead(status, headers);
      res.end(body);
      ok = status < 400;
      return undefined;
    } finally {
      state.pending--;
      state.recordRequest(performance.now() - started, ok);
    }
  }

  #unreachable(state: BackendState, error: unknown): AttemptFailure {
    const message = error instanceof Error ? error.message : String(error);
    this.registry.failed(state, message);
    const timedOut = error instanceof UpstreamUnreachable && error.timedOut;
    return { kind: "unreachable", backend: state.name, message, timedOut };
  }

  #bodyFor(job: ChatJob, model: string): Buffer | string {
    if (job.body["model"] === model) return job.raw;
    return JSON.stringify({ ...job.body, model });
  }
}
