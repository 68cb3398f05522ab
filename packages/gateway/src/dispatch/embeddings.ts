import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import { UpstreamUnreachable } from "../backends/types.ts";
import type { BackendState } from "../fleet/backend-state.ts";
import type { Registry } from "../fleet/registry.ts";
import { ApiError } from "../http/errors.ts";
import type { RequestFacts } from "../http/request-log.ts";
import type { RouteReason, Target } from "../routing/types.ts";
import { type AttemptFailure, describeFailure, isBackendFault, sendApiError, sendAttemptsFailed } from "./failure.ts";
import { bodyWithModel } from "./rewrite-body.ts";
import { routeHeaders } from "./route-headers.ts";
import { ShutdownSignal, shuttingDown } from "./shutdown.ts";

export interface EmbeddingsJob {
  requestId: string;
  /** Filled in with the backend that answered, for the request's log line. */
  facts?: RequestFacts;
  body: Record<string, unknown>;
  raw: Buffer;
  input: string | string[];
  encodingFormat: "float" | "base64" | undefined;
  targets: readonly Target<BackendState>[];
  reason: RouteReason;
  estimatedTokens: number;
}

/** Executes an embeddings decision with the same failover rules as chat (5xx, 429, unreachable → next backend). */
export class EmbeddingsDispatcher {
  constructor(
    private readonly registry: Registry,
    private readonly maxAttempts: number,
    private readonly logger: Logger,
    private readonly shutdown: ShutdownSignal = new ShutdownSignal(),
  ) {}

  run(job: EmbeddingsJob, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    const cut = () => {
      if (res.writableEnded || res.destroyed) return;
      this.shutdown.countCut();
      controller.abort();
      if (!res.headersSent) sendApiError(res, shuttingDown(), job.requestId);
    };
    return this.shutdown.guard(() => this.#run(job, res, controller), cut);
  }

  async #run(job: EmbeddingsJob, res: ServerResponse, controller: AbortController): Promise<void> {
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const failures: AttemptFailure[] = [];
    const attempts = job.targets.slice(0, this.maxAttempts);
    for (let index = 0; index < attempts.length; index++) {
      if (controller.signal.aborted) return;
      const target = attempts[index]!;
      const state = target.backend;
      const started = performance.now();
      state.pending++;
      if (job.facts) job.facts.backend = state.name;
      let ok = false;
      try {
        let json: string | Buffer;
        try {
          json = bodyWithModel(job.body, job.raw, target.model);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          sendApiError(res, error, job.requestId);
          return;
        }
        const dimensions = job.body["dimensions"];
        const reply = await state.backend.embeddings(
          {
            model: target.model,
            input: job.input,
            encodingFormat: job.encodingFormat,
            dimensions: typeof dimensions === "number" ? dimensions : undefined,
            json: String(json),
          },
          job.requestId,
          controller.signal,
        );
        if (isBackendFault(reply.statusCode)) {
          if (reply.statusCode !== 429) this.registry.failed(state, `HTTP ${reply.statusCode}`);
          failures.push({ kind: "status", backend: state.name, ...reply });
          continue;
        }
        const headers = routeHeaders(
          target,
          index > 0 ? "failover" : job.reason,
          job.requestId,
          job.estimatedTokens,
          undefined,
        );
        headers["content-type"] = reply.contentType;
        headers["content-length"] = reply.body.length;
        res.writeHead(reply.statusCode, headers);
        res.end(reply.body);
        ok = reply.statusCode < 400;
        return;
      } catch (error) {
        if (controller.signal.aborted) return;
        const message = error instanceof Error ? error.message : String(error);
        this.registry.failed(state, message);
        failures.push({
          kind: "unreachable",
          backend: state.name,
          message,
          timedOut: error instanceof UpstreamUnreachable && error.timedOut,
        });
      } finally {
        state.pending--;
        state.recordRequest(
          performance.now() - started,
          ok ? "ok" : controller.signal.aborted ? "client_abort" : "error",
        );
        const last = failures[failures.length - 1];
        if (!ok && last?.backend === state.name) {
          this.logger.warn(
            { requestId: job.requestId, backend: state.name },
            `embeddings attempt failed: ${describeFailure(last)}`,
          );
        }
      }
    }
    if (!controller.signal.aborted && !res.headersSent) sendAttemptsFailed(res, failures, job.requestId);
  }
}
