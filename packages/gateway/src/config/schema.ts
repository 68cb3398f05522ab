// `* as z`, not `{ z }`, here and in the backends' options: the bundler then keeps only the parts of zod used, where
// `{ z }` (a namespace object as a value) kept all of it with its 64 locales, 0.56 MB compiled at every start.
import * as z from "zod";
import type { BackendTypeSpec } from "./backend-type.ts";

/** Backend types are handed in by the backends' registry: each declares its type, kind and extra keys. */
export type BackendType = string;

const CAPABILITIES = ["completion", "vision", "tools", "json", "embeddings"] as const;
export type Capability = (typeof CAPABILITIES)[number];

const STRATEGIES = ["smart", "round_robin", "priority_only", "random"] as const;
export type Strategy = (typeof STRATEGIES)[number];

const ZONES = ["restricted", "open"] as const;
export type Zone = (typeof ZONES)[number];

const lowerCase = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : value);

/** A TOML table as a Map, so that names such as "__proto__" or "constructor" stay ordinary keys. */
const tableToMap = (value: unknown) =>
  value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)
    ? new Map(Object.entries(value))
    : value;

/** A table whose keys are names (models, aliases): validated, then held in a Map, never in a plain object. */
const nameTable = <V extends z.ZodType>(value: V) =>
  z.preprocess(tableToMap, z.map(z.string().min(1), value)).default(() => new Map());
const positiveSeconds = z.number().positive();
const count = z.number().int().min(1);

const staticModel = z.strictObject({
  id: z.string().min(1),
  context_length: z.number().int().min(1).optional(),
  capabilities: z.array(z.enum(CAPABILITIES)).optional(),
});

/** Keys every backend has. Keys a type adds are declared by its module (see COMMON_BACKEND_KEYS in load.ts). */
const commonBackendKeys = {
  name: z.string().min(1),
  url: z.url({ protocol: /^https?$/ }),
  type: z.string(),
  priority: z.number().int().default(50),
  api_key_env: z.string().min(1).optional(),
  zone: z.preprocess(lowerCase, z.enum(ZONES)).optional(),
  tier: z.number().int().min(1).max(5).default(1),
  max_concurrent: count.optional(),
  models: z.array(staticModel).optional(),
};
export const COMMON_BACKEND_KEYS: ReadonlySet<string> = new Set(Object.keys(commonBackendKeys));

// Every type's own keys are known here, so a typo still gets "did you mean"; load.ts then checks that each key set
// belongs to the backend's type.
function backendSchema(types: readonly BackendTypeSpec[]) {
  const names = types.map((spec) => spec.type) as [string, ...string[]];
  const keys = { ...commonBackendKeys, type: z.enum(names) };
  return z.strictObject(Object.assign({}, ...types.map((spec) => spec.options), keys) as typeof keys);
}

const server = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(8000),
  request_timeout_seconds: positiveSeconds.default(300),
  max_concurrent_requests: count.optional(),
  body_limit_bytes: z
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** ours: the most a backend's answer may bring (a whole body, or a stream); more fails the attempt. */
  answer_limit_bytes: z
    .number()
    .int()
    .min(64 * 1024)
    .default(256 * 1024 * 1024),
  client_timeout_seconds: positiveSeconds.default(30),
  shutdown_grace_seconds: z.number().min(0).max(3600).default(10),
  history_size: z.number().int().min(0).max(100_000).default(1000),
  /** ours: dashboard sockets connected at once; more are refused with 503 (each may hold up to 1 MiB unsent). */
  dashboard_max_clients: z.number().int().min(0).max(10_000).default(100),
  /** ours: serve ordinary model requests straight on the connection (http/http1/); false leaves all to node:http. */
  raw_ingress: z.boolean().default(true),
});

const healthCheck = z.strictObject({
  enabled: z.boolean().default(true),
  interval_seconds: positiveSeconds.default(30),
  timeout_seconds: positiveSeconds.default(5),
  failure_threshold: count.default(3),
  recovery_threshold: count.default(2),
});

const policy = z.strictObject({
  model_pattern: z.string().min(1),
  privacy: z.preprocess(lowerCase, z.enum(["restricted", "unrestricted"])).default("unrestricted"),
  min_tier: z.number().int().min(1).max(5).optional(),
  max_cost_per_request: z.number().nonnegative().optional(),
  fallback_allowed: z.boolean().default(true),
});

const budget = z.strictObject({
  monthly_limit_usd: z.number().positive().optional(),
  daily_limit_usd: z.number().positive().optional(),
  soft_limit_percent: z.number().min(0).max(100).default(75),
  hard_limit_action: z.enum(["warn", "block_cloud", "block_all"]).default("warn"),
  /** Where spend is kept across restarts; relative paths are relative to the configuration file. */
  state_file: z.string().min(1).optional(),
  reconciliation_interval_secs: count.default(60),
});

/** USD per million tokens for one model. */
const price = z.strictObject({
  input_usd_per_mtok: z.number().nonnegative(),
  output_usd_per_mtok: z.number().nonnegative(),
  cache_read_usd_per_mtok: z.number().nonnegative().optional(),
  cache_write_usd_per_mtok: z.number().nonnegative().optional(),
});

const routing = z.strictObject({
  strategy: z.enum(STRATEGIES).default("smart"),
  max_retries: z.number().int().min(0).max(10).default(2),
  weights: z
    .strictObject({
      priority: z.number().int().min(0).default(50),
      load: z.number().int().min(0).default(30),
      latency: z.number().int().min(0).default(20),
    })
    .default({ priority: 50, load: 30, latency: 20 }),
  aliases: nameTable(z.string().min(1)),
  fallbacks: nameTable(z.array(z.string().min(1))),
  policies: z.array(policy).default([]),
  budget: budget.optional(),
});

const logging = z.strictObject({
  level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  format: z.enum(["pretty", "json"]).optional(),
  component_levels: z.record(z.string(), z.string()).optional(),
  enable_content_logging: z.boolean().optional(),
});

// ── Capacity, queueing and quality: [queue] and [quality] (Nexus's keys and defaults, plus ours marked "ours") ──
const queue = z.strictObject({
  enabled: z.boolean().default(true),
  max_size: z.number().int().min(0).default(100),
  /** Nexus takes whole seconds; fractions are accepted too. */
  max_wait_seconds: positiveSeconds.default(30),
});
const quality = z.strictObject({
  error_rate_threshold: z.number().min(0).max(1).default(0.5),
  ttft_penalty_threshold_ms: z.number().int().min(0).default(3000),
  /** Accepted for Nexus compatibility; rates are computed when read, so there is no interval. */
  metrics_interval_seconds: z.number().int().min(1).optional(),
  /** ours: the sliding window the error rate and time to first token are computed over. */
  window_seconds: positiveSeconds.default(60),
  /** ours: outcomes needed in the window before the error rate can exclude a backend. */
  min_requests: count.default(3),
  /** ours: how long an excluded backend waits before one trial request (half-open). */
  cooldown_seconds: positiveSeconds.default(30),
});
// ── end of [queue] and [quality] ──

const discovery = z.strictObject({
  enabled: z.boolean().default(true),
  service_types: z.array(z.string()).max(16).default(["_ollama._tcp.local", "_llm._tcp.local"]),
  grace_period_seconds: z.number().int().min(0).max(86_400).default(60),
});

// `[lifecycle]`: Nexus's keys are accepted (so a nexus.toml loads unchanged) but not acted on yet; ours is.
const lifecycle = z.strictObject({
  /** ours: how long one operation may hold its backends before it fails (a pull that never ends). */
  operation_timeout_seconds: positiveSeconds.max(7 * 86_400).default(3600),
  timeout_ms: z.number().int().min(1).optional(),
  vram_headroom_percent: z.number().int().min(0).max(100).optional(),
  vram_buffer_percent: z.number().int().min(0).max(100).optional(),
  vram_heuristic_max_gb: z.number().int().min(0).optional(),
});
const fleet = z.strictObject({
  enabled: z.boolean().default(true),
  min_sample_days: z.number().int().min(0).max(14).default(7),
  min_request_count: z.number().int().min(0).default(100),
  analysis_interval_seconds: z.number().int().min(1).optional(),
  max_recommendations: z.number().int().min(0).max(100).default(5),
  peak_ratio: z.number().min(1).default(2),
  rising_percent: z.number().min(0).default(20),
  idle_hours: z
    .number()
    .int()
    .min(1)
    .max(14 * 24)
    .default(24),
});

const tracing = z.strictObject({
  enabled: z.boolean().default(false),
});

/** ours: `[auth]` — off unless master_key_env names a variable; then every API route needs a key. */
const auth = z.strictObject({
  master_key_env: z.string().min(1).optional(),
  /** `/metrics` and the dashboard without the master key. */
  public_metrics: z.boolean().default(false),
});

/** ours: `[state]` — where keys, rate windows, spend and stored responses live (shared by replicas with Redis). */
const state = z.strictObject({
  backend: z.enum(["embedded", "redis"]).default("embedded"),
  /** redis: `redis://[:password@]host:port[/db]` or `rediss://…`. */
  url: z.url({ protocol: /^rediss?$/ }).optional(),
  key_prefix: z
    .string()
    .regex(/^[\w:.-]{1,64}$/, "letters, digits and _ : . - (at most 64)")
    .default("switchboard:"),
  /** embedded: the file; relative paths are relative to the configuration file. */
  path: z.string().min(1).optional(),
});

/**
 * Options for every parse of the configuration: each schema parses a handful of times in a process, and zod's JIT
 * (generating and compiling a parser per object schema on its first parse) costs more at start-up than it saves.
 */
export const PARSE_ONCE = { jitless: true } as const;

function buildSchema(types: readonly BackendTypeSpec[]) {
  return z.strictObject({
    server: server.default(server.parse({}, PARSE_ONCE)),
    health_check: healthCheck.default(healthCheck.parse({}, PARSE_ONCE)),
    routing: routing.default(routing.parse({}, PARSE_ONCE)),
    logging: logging.default(logging.parse({}, PARSE_ONCE)),
    backends: z.array(backendSchema(types)).default([]),
    budget: budget.optional(),
    pricing: nameTable(price),
    discovery: discovery.default(discovery.parse({}, PARSE_ONCE)),
    quality: quality.default(quality.parse({}, PARSE_ONCE)),
    queue: queue.default(queue.parse({}, PARSE_ONCE)),
    tracing: tracing.default(tracing.parse({}, PARSE_ONCE)),
    auth: auth.default(auth.parse({}, PARSE_ONCE)),
    state: state.default(state.parse({}, PARSE_ONCE)),
    lifecycle: lifecycle.default(lifecycle.parse({}, PARSE_ONCE)),
    fleet: fleet.default(fleet.parse({}, PARSE_ONCE)),
  });
}

const schemas = new WeakMap<readonly BackendTypeSpec[], ReturnType<typeof buildSchema>>();

/** The whole configuration's schema for these backend types (built once per list). */
export function configSchemaFor(types: readonly BackendTypeSpec[]): ReturnType<typeof buildSchema> {
  let schema = schemas.get(types);
  if (schema === undefined) {
    schema = buildSchema(types);
    schemas.set(types, schema);
  }
  return schema;
}

/** Keys accepted for compatibility with nexus.toml that have no effect yet (a warning names their section). */
export const INACTIVE_KEYS = {
  lifecycle: ["timeout_ms", "vram_headroom_percent", "vram_buffer_percent", "vram_heuristic_max_gb"],
} as const;

export type RawConfig = z.output<ReturnType<typeof buildSchema>>;
export type StaticModelConfig = z.output<typeof staticModel>;
export type PolicyConfig = z.output<typeof policy>;
export type ServerConfig = z.output<typeof server>;
export type HealthCheckConfig = z.output<typeof healthCheck>;
export type RoutingConfig = z.output<typeof routing>;
export type QueueConfig = z.output<typeof queue>;
export type TracingConfig = z.output<typeof tracing>;
export type FleetConfig = z.output<typeof fleet>;
export type LifecycleConfig = z.output<typeof lifecycle>;
export type DiscoveryConfig = z.output<typeof discovery>;
export type QualityConfig = z.output<typeof quality>;
