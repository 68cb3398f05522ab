import type { BackendKind } from "./backend-type.ts";
import type {
  BackendType,
  Capability,
  DiscoveryConfig,
  FleetConfig,
  HealthCheckConfig,
  LifecycleConfig,
  PolicyConfig,
  QualityConfig,
  QueueConfig,
  RoutingConfig,
  ServerConfig,
  StaticModelConfig,
  TracingConfig,
  Zone,
} from "./schema.ts";

export type { BackendKind };

/** One backend as the rest of the gateway sees it: validated, defaults applied, its key read from the environment. */
export interface BackendSettings {
  name: string;
  /** Base URL without a trailing slash and without `/v1`. */
  url: string;
  type: BackendType;
  kind: BackendKind;
  zone: Zone;
  tier: number;
  priority: number;
  maxConcurrent: number | undefined;
  /** Read from the environment variable named by api_key_env; never logged, never sent to clients. */
  apiKey: string | undefined;
  models: StaticModelConfig[];
  /** The keys only this backend's type accepts (declared by its module), validated. */
  options: Readonly<Record<string, unknown>>;
}

/** `[budget]` (or Nexus's `[routing.budget]`), resolved. */
export interface BudgetSettings {
  monthlyLimitUsd: number | undefined;
  dailyLimitUsd: number | undefined;
  softLimitPercent: number;
  hardLimitAction: "warn" | "block_cloud" | "block_all";
  /** Absolute path of the spend state file. */
  stateFile: string;
}

/** `[auth]`, resolved: the master key read from its environment variable; undefined when auth is off. */
export interface AuthSettings {
  /** Never logged, never sent; compared in constant time. */
  masterKey: string;
  /** The variable it came from (named in messages instead of the key). */
  masterKeyEnv: string;
  publicMetrics: boolean;
}

/** `[state]`, resolved. */
export type StateSettings =
  | { backend: "embedded" /** Absolute path of the state file. */; path: string }
  | { backend: "redis"; url: string; keyPrefix: string };

export interface LoggingSettings {
  level: "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
  format: "pretty" | "json" | undefined;
}

export interface GatewayConfig {
  /** The file it came from, or "(built-in defaults)". */
  source: string;
  server: ServerConfig;
  healthCheck: HealthCheckConfig;
  routing: Omit<RoutingConfig, "policies" | "budget">;
  policies: PolicyConfig[];
  logging: LoggingSettings;
  backends: BackendSettings[];
  /** Undefined when no budget is configured (spend is still counted for /v1/stats, nothing is limited). */
  budget: BudgetSettings | undefined;
  /** `[pricing]`: prices that override or add to the built-in list (policy/pricing.ts), by model. */
  pricing: ReadonlyMap<string, ModelPrice>;
  /** `[auth]`: undefined when authentication is off (the default). */
  auth: AuthSettings | undefined;
  /** `[state]`: the state store. */
  state: StateSettings;
  /** `[queue]`: waiting for capacity. */
  queue: QueueConfig;
  /** `[tracing]`: OpenTelemetry spans, off by default. */
  tracing: TracingConfig;
  /** `[lifecycle]`: model load / unload / migrate operations. */
  lifecycle: LifecycleConfig;
  /** `[fleet]`: fleet recommendations. */
  fleet: FleetConfig;
  /** `[discovery]`: backends found over mDNS. */
  discovery: DiscoveryConfig;
  /** `[quality]`: error-rate exclusion and time-to-first-token scoring. */
  quality: QualityConfig;
  /** Sections present in the file that are accepted for Nexus compatibility but have no effect yet. */
  inactiveSections: string[];
}

export type { Capability, StaticModelConfig, Zone };

/** USD per million tokens. Cache prices default to the input price when a provider has none. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
}
