import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { checkAliases } from "./aliases.ts";
import type { BackendTypeSpec } from "./backend-type.ts";
import { ConfigError } from "./config-error.ts";
import { defaultConfigInput } from "./defaults.ts";
import { formatIssue } from "./format-issue.ts";
import { COMMON_BACKEND_KEYS, configSchemaFor, INACTIVE_KEYS, PARSE_ONCE, type RawConfig } from "./schema.ts";
import type {
  AuthSettings,
  BackendSettings,
  BudgetSettings,
  GatewayConfig,
  ModelPrice,
  StateSettings,
} from "./types.ts";

/** The file `serve` reads when neither -c nor NEXUS_CONFIG names one (relative to the working directory). */
const DEFAULT_FILE = "gateway.toml";

export interface LoadOptions {
  /** Path given on the command line (-c); wins over NEXUS_CONFIG. */
  path?: string | undefined;
  host?: string | undefined;
  port?: number | string | undefined;
  logLevel?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/**
 * Loads, validates and overlays the configuration: CLI flags > environment > file > defaults, for the backend types
 * given (the gateway's registry: see load-config.ts). Throws ConfigError.
 */
export function loadConfigFor(types: readonly BackendTypeSpec[], options: LoadOptions = {}): GatewayConfig {
  const env = options.env ?? process.env;
  // Like the bridge with ./matterbridge.toml: a gateway.toml in the working directory is used when none is named.
  const path = options.path ?? nonEmpty(env["NEXUS_CONFIG"]) ?? (existsSync(DEFAULT_FILE) ? DEFAULT_FILE : undefined);
  let input: Record<string, unknown>;
  let source: string;
  if (path === undefined) {
    input = defaultConfigInput();
    source = "(built-in defaults)";
  } else {
    source = path;
    input = readToml(path);
  }
  applyOverrides(input, source, env, options);
  return buildConfig(types, input, source, env);
}

/** Parses configuration TOML text for the backend types given. */
export function parseConfigTextFor(
  types: readonly BackendTypeSpec[],
  text: string,
  source: string,
  env: NodeJS.ProcessEnv = {},
): GatewayConfig {
  return buildConfig(types, parseTomlText(text, source), source, env);
}

function readToml(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a directory" : `cannot read (${code})`;
    throw new ConfigError(`${path}: ${why}`);
  }
  return parseTomlText(text, path);
}

function parseTomlText(text: string, source: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split("\n")[0] ?? "invalid TOML";
      throw new ConfigError(
        `${source}:${error.line}:${error.column}: invalid TOML: ${first.replace(/^Invalid TOML document: /, "")}`,
      );
    }
    throw new ConfigError(`${source}: invalid TOML: ${(error as Error).message}`);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function section(input: Record<string, unknown>, name: string): Record<string, unknown> {
  const existing = input[name];
  if (existing !== null && typeof existing === "object" && !Array.isArray(existing)) {
    return existing as Record<string, unknown>;
  }
  const created: Record<string, unknown> = {};
  input[name] = created;
  return created;
}

function parsePort(value: string | number, origin: string, source: string): number {
  const port = typeof value === "number" ? value : /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${source}: ${origin}: ${JSON.stringify(String(value))} is not a port; allowed: 0-65535`);
  }
  return port;
}

function applyOverrides(input: Record<string, unknown>, source: string, env: NodeJS.ProcessEnv, options: LoadOptions) {
  const host = options.host ?? nonEmpty(env["NEXUS_HOST"]);
  const port = options.port ?? nonEmpty(env["NEXUS_PORT"]);
  const level = options.logLevel ?? nonEmpty(env["NEXUS_LOG_LEVEL"]);
  const format = nonEmpty(env["NEXUS_LOG_FORMAT"]);
  if (host !== undefined) section(input, "server")["host"] = host;
  if (port !== undefined) {
    const origin = options.port !== undefined ? "--port" : "NEXUS_PORT";
    section(input, "server")["port"] = parsePort(port, origin, source);
  }
  if (level !== undefined) section(input, "logging")["level"] = level.toLowerCase();
  if (format !== undefined) section(input, "logging")["format"] = format.toLowerCase();
}

/** An environment variable name as shells write them. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function normaliseUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/v1$/, "");
}

function buildBackends(
  types: readonly BackendTypeSpec[],
  raw: RawConfig,
  source: string,
  env: NodeJS.ProcessEnv,
): BackendSettings[] {
  const names = new Set<string>();
  return raw.backends.map((backend, index) => {
    const where = `${source}: backends[${index}]`;
    if (names.has(backend.name)) {
      throw new ConfigError(
        `${where}.name: "${backend.name}" is already used by another backend; names must be unique`,
      );
    }
    names.add(backend.name);
    const module = types.find((spec) => spec.type === backend.type)!; // the schema only accepts these types
    const options: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(backend)) {
      if (COMMON_BACKEND_KEYS.has(key) || value === undefined) continue;
      if (!Object.hasOwn(module.options, key)) {
        const own = Object.keys(module.options);
        throw new ConfigError(
          `${where}.${key}: not a key of type "${backend.type}" backends${own.length > 0 ? `; its own keys: ${own.join(", ")}` : ""}`,
        );
      }
      options[key] = value;
    }
    let apiKey: string | undefined;
    if (backend.api_key_env !== undefined) {
      if (!ENV_NAME.test(backend.api_key_env)) {
        // Most likely the key itself was pasted here: say so without printing it.
        throw new ConfigError(
          `${where}.api_key_env: must name an environment variable (letters, digits and _, e.g. OPENAI_API_KEY), not hold the key; the value is not shown`,
        );
      }
      apiKey = nonEmpty(env[backend.api_key_env]);
      if (apiKey === undefined) {
        throw new ConfigError(`${where}.api_key_env: environment variable ${backend.api_key_env} is not set`);
      }
    } else if (module.requiresKey) {
      throw new ConfigError(
        `${where}.api_key_env: required for type "${backend.type}" (the name of the variable holding the key)`,
      );
    }
    const kind = module.kind;
    return {
      name: backend.name,
      url: normaliseUrl(backend.url),
      type: backend.type,
      kind,
      zone: backend.zone ?? (kind === "cloud" ? "open" : "restricted"),
      tier: backend.tier,
      priority: backend.priority,
      maxConcurrent: backend.max_concurrent,
      apiKey,
      models: backend.models ?? [],
      options,
    };
  });
}

function buildConfig(
  types: readonly BackendTypeSpec[],
  input: Record<string, unknown>,
  source: string,
  env: NodeJS.ProcessEnv,
): GatewayConfig {
  const configSchema = configSchemaFor(types);
  const parsed = configSchema.safeParse(input, PARSE_ONCE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${source}: ${formatIssue(issue, configSchema, input)}`);
  }
  const raw = parsed.data;
  const aliasProblem = checkAliases(raw.routing.aliases);
  if (aliasProblem) throw new ConfigError(`${source}: routing.aliases: ${aliasProblem}`);
  const { policies, budget: _budget, ...routing } = raw.routing;
  const inactiveSections = Object.entries(INACTIVE_KEYS)
    .filter(([section, keys]) =>
      keys.some((key) => (raw[section as keyof typeof INACTIVE_KEYS] as Record<string, unknown>)[key] !== undefined),
    )
    .map(([section]) => section);
  return {
    source,
    server: raw.server,
    healthCheck: raw.health_check,
    routing,
    policies,
    logging: { level: raw.logging.level, format: raw.logging.format },
    backends: buildBackends(types, raw, source, env),
    budget: buildBudget(raw, source),
    auth: buildAuth(raw, source, env),
    state: buildState(raw, source),
    pricing: buildPricing(raw),
    queue: raw.queue,
    tracing: raw.tracing,
    fleet: raw.fleet,
    lifecycle: raw.lifecycle,
    discovery: raw.discovery,
    quality: raw.quality,
    inactiveSections,
  };
}

function buildPricing(raw: RawConfig): Map<string, ModelPrice> {
  return new Map(
    [...raw.pricing].map(([model, price]) => [
      model,
      {
        input: price.input_usd_per_mtok,
        output: price.output_usd_per_mtok,
        cacheRead: price.cache_read_usd_per_mtok,
        cacheWrite: price.cache_write_usd_per_mtok,
      },
    ]),
  );
}

/** The spend state file when none is named: beside the configuration file (or in the working directory). */
const DEFAULT_STATE_FILE = "gateway-spend.json";

/** `[budget]`, or Nexus's `[routing.budget]` (one of the two). */
function buildBudget(raw: RawConfig, source: string): BudgetSettings | undefined {
  if (raw.budget !== undefined && raw.routing.budget !== undefined) {
    throw new ConfigError(`${source}: budget: give either [budget] or [routing.budget], not both`);
  }
  const budget = raw.budget ?? raw.routing.budget;
  if (budget === undefined) return undefined;
  const base = source.startsWith("(") ? process.cwd() : dirname(resolve(source));
  return {
    monthlyLimitUsd: budget.monthly_limit_usd,
    dailyLimitUsd: budget.daily_limit_usd,
    softLimitPercent: budget.soft_limit_percent,
    hardLimitAction: budget.hard_limit_action,
    stateFile: resolve(base, budget.state_file ?? DEFAULT_STATE_FILE),
  };
}

/** A master key shorter than this is refused: it guards the admin API. */
const MIN_MASTER_KEY_LENGTH = 16;

function buildAuth(raw: RawConfig, source: string, env: NodeJS.ProcessEnv): AuthSettings | undefined {
  const name = raw.auth.master_key_env;
  if (name === undefined) return undefined;
  const where = `${source}: auth.master_key_env`;
  if (!ENV_NAME.test(name)) {
    throw new ConfigError(
      `${where}: must name an environment variable (letters, digits and _, e.g. GATEWAY_MASTER_KEY), not hold the key; the value is not shown`,
    );
  }
  const masterKey = nonEmpty(env[name]);
  if (masterKey === undefined) throw new ConfigError(`${where}: environment variable ${name} is not set`);
  if (masterKey.length < MIN_MASTER_KEY_LENGTH) {
    throw new ConfigError(
      `${where}: the key in ${name} is shorter than ${MIN_MASTER_KEY_LENGTH} characters; use a long random one (openssl rand -hex 32)`,
    );
  }
  return { masterKey, masterKeyEnv: name, publicMetrics: raw.auth.public_metrics };
}

/** The embedded state file when none is named: beside the configuration file (or in the working directory). */
const DEFAULT_STATE_PATH = "gateway-state.json";

function buildState(raw: RawConfig, source: string): StateSettings {
  const { backend, url, key_prefix: keyPrefix, path } = raw.state;
  if (backend === "redis") {
    if (url === undefined)
      throw new ConfigError(`${source}: state.url: required with backend = "redis" (redis://host:port)`);
    if (path !== undefined) throw new ConfigError(`${source}: state.path: only for backend = "embedded"`);
    return { backend, url, keyPrefix };
  }
  if (url !== undefined) throw new ConfigError(`${source}: state.url: only for backend = "redis"`);
  const base = source.startsWith("(") ? process.cwd() : dirname(resolve(source));
  return { backend, path: resolve(base, path ?? DEFAULT_STATE_PATH) };
}
