import type { ModelInfo } from "../backends/types.ts";
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
  | "context_length_exceeded"
  | "at_capacity"
  | "budget_exceeded";

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

export interface FilterContext {
  model: string;
  requirements: Requirements;
  policy: PolicyRequirement | undefined;
}

/** A routing filter: keeps the candidates that qualify and records why each other one was excluded. Pure. */
export type Filter = <C extends Candidate>(
  candidates: readonly C[],
  context: FilterContext,
  rejected: Rejection[],
) => C[];

export type RouteReason = "capability-match" | "capacity-overflow" | "privacy-requirement" | "failover";

export interface Target<C extends Candidate = Candidate> {
  backend: C;
  /** The model name sent to the backend (after alias and fallback resolution). */
  model: string;
  /** Set when the model is a fallback of the requested one. */
  fallback: boolean;
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
  | {
      outcome: "unavailable";
      resolvedModel: string;
      rejections: Rejection[];
      requiredTier: number;
      privacyZoneRequired: Zone;
      availableBackends: string[];
    };
