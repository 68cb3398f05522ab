import type { ModelInfo, NativeApi } from "../backends/types.ts";
import type { BackendKind, Zone } from "../config/types.ts";
import type { HealthStatus } from "../fleet/backend-state.ts";

/** What a request needs from a backend, read once from the request body. */
export interface Requirements {
  kind: "chat" | "embeddings";
  vision: boolean;
  tools: boolean;
  json: boolean;
  /** Rough prompt size (characters / 4), compared with the model's context length. */
  estimatedTokens: number;
  /** Set when only a backend speaking this API can serve: the request holds what OpenAI's format cannot carry. */
  api?: NativeApi | undefined;
}

/** The facts routing reads about a backend; fleet's BackendState provides them. */
export interface Candidate {
  readonly name: string;
  readonly settings: {
    readonly kind: BackendKind;
    readonly zone: Zone;
    readonly tier: number;
    readonly priority: number;
    readonly maxConcurrent: number | undefined;
  };
  readonly status: HealthStatus;
  readonly pending: number;
  readonly probeLatencyMs: number | undefined;
  readonly modelsById: ReadonlyMap<string, ModelInfo>;
  /** The APIs the backend speaks besides OpenAI's chat. */
  readonly nativeApis?: ReadonlySet<NativeApi> | undefined;
}

/** Machine-readable reasons a backend was excluded (X-Gateway-Rejection-Reasons). */
export type RejectionReason =
  | "unhealthy"
  | "privacy_zone_mismatch"
  | "tier_too_low"
  | "chat_unsupported"
  | "embeddings_unsupported"
  | "vision_unsupported"
  | "tools_unsupported"
  | "json_mode_unsupported"
  | "api_unsupported"
  | "context_length_exceeded"
  | "error_rate_too_high"
  | "at_capacity"
  | "budget_exceeded"
  | "model_loading"
  | "model_migrated";

export interface Rejection {
  backend: string;
  model: string;
  reason: RejectionReason;
  detail: string;
}

/** A matching `[[routing.policies]]` entry, reduced to what filters need. */
export interface PolicyRequirement {
  privacy: "restricted" | "unrestricted";
  minTier: number | undefined;
}

/** What the quality filter and the smart strategy read about a backend's recent answers for a model. */
export interface QualityView {
  /** False while the backend's error rate for the model is over the threshold (and no half-open trial is free). */
  admits(backend: string, model: string): boolean;
  /** 1 when time to first token is fine, down to 0 as it reaches twice the penalty threshold. */
  ttftFactor(backend: string, model: string): number;
}

export interface FilterContext {
  model: string;
  requirements: Requirements;
  policy: PolicyRequirement | undefined;
  quality: QualityView | undefined;
}

/** A routing filter: keeps the candidates that qualify and records why each other one was excluded. Pure. */
export type Filter = <C extends Candidate>(
  candidates: readonly C[],
  context: FilterContext,
  rejected: Rejection[],
) => C[];

export type RouteReason =
  | "capability-match"
  | "capacity-overflow"
  | "privacy-requirement"
  | "failover"
  | "flexible-substitution";

/** `X-Gateway-Strict` (the default) or `X-Gateway-Flexible: true`. */
export interface RouteOptions {
  /** Allow a different model of the same or a higher tier when the requested one cannot be served. */
  flexible: boolean;
}

export interface Target<C extends Candidate = Candidate> {
  backend: C;
  /** The model name sent to the backend (after alias and fallback resolution). */
  model: string;
  /** Set when the model is not the requested one (a configured fallback or a flexible substitute). */
  fallback: boolean;
  /** Set when the model is a flexible substitute (X-Gateway-Flexible), not a configured fallback. */
  substitute?: boolean;
}

/** Why nothing can serve the request now: the facts of the spec's 503 body and rejection headers. */
export interface Unavailability {
  resolvedModel: string;
  rejections: Rejection[];
  requiredTier: number;
  privacyZoneRequired: Zone;
  availableBackends: string[];
}

export type RouteDecision<C extends Candidate = Candidate> =
  | {
      outcome: "route";
      /** Ordered: the first is the choice, the others are failover candidates. */
      targets: Target<C>[];
      reason: RouteReason;
      resolvedModel: string;
      rejections: Rejection[];
    }
  | { outcome: "unknown_model"; resolvedModel: string; available: string[] }
  | ({ outcome: "unavailable" } & Unavailability)
  /**
   * Every backend that could serve is at capacity: `blocked` lists them (in preference order); the request may wait
   * for one of their slots.
   */
  | ({ outcome: "at_capacity"; blocked: Target<C>[] } & Unavailability);
