import { request } from "undici";
import { QueryError } from "./query.ts";
import { table } from "./table.ts";

export interface KeysOptions {
  url: string;
  json?: boolean;
  keyEnv: string;
}

export interface CreateOptions extends KeysOptions {
  name: string;
  models?: string;
  rpm?: string;
  tpm?: string;
  maxConcurrent?: string;
  budgetUsd?: string;
  budgetPeriod?: string;
  expiresAt?: string;
}

type Row = Record<string, unknown>;

async function call(options: KeysOptions, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) {
  const masterKey = process.env[options.keyEnv];
  if (!masterKey)
    throw new QueryError(`set ${options.keyEnv} to the gateway's master key (or name another variable with --key-env)`);
  const base = options.url.replace(/\/+$/, "");
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${masterKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new QueryError(
      `cannot reach the gateway at ${base} (${code ?? (error as Error).message}); is it running? (--url)`,
    );
  }
  const text = await response.body.text();
  let parsed: Row;
  try {
    parsed = JSON.parse(text) as Row;
  } catch {
    throw new QueryError(
      `${base}${path} answered HTTP ${response.statusCode} without JSON; is ${base} a Switchboard gateway?`,
    );
  }
  if (response.statusCode >= 400) {
    const message =
      ((parsed["error"] as Row | undefined)?.["message"] as string | undefined) ?? `HTTP ${response.statusCode}`;
    throw new QueryError(`the gateway refused: ${message}`);
  }
  return parsed;
}

const integer = (value: string | undefined, flag: string) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new QueryError(`${flag} must be a whole number`);
  return Number(value);
};

/** `keys create`: the new key, shown this once. */
export async function createKeyCommand(options: CreateOptions): Promise<string> {
  const budget = options.budgetUsd === undefined ? undefined : Number(options.budgetUsd);
  if (budget !== undefined && !Number.isFinite(budget)) throw new QueryError("--budget-usd must be a number");
  const body = {
    name: options.name,
    models: options.models
      ?.split(",")
      .map((model) => model.trim())
      .filter(Boolean),
    rpm: integer(options.rpm, "--rpm"),
    tpm: integer(options.tpm, "--tpm"),
    max_concurrent: integer(options.maxConcurrent, "--max-concurrent"),
    budget_usd: budget,
    budget_period: options.budgetPeriod,
    expires_at: options.expiresAt,
  };
  const made = await call(options, "POST", "/v1/keys", body);
  if (options.json) return JSON.stringify(made, null, 2);
  return `${made["key"]}\n\nkey "${made["name"]}" (${made["id"]}) created; this is the only time its secret is shown`;
}

/** `keys list`: one row per key with its limits and usage, never a secret. */
export async function listKeysCommand(options: KeysOptions): Promise<string> {
  const list = await call(options, "GET", "/v1/keys");
  const data = (list["data"] ?? []) as Row[];
  if (options.json) return JSON.stringify({ keys: data }, null, 2);
  const text = (value: unknown) => (value === null || value === undefined ? "-" : String(value));
  return table(
    [
      "ID",
      "NAME",
      "HINT",
      "MODELS",
      "RPM",
      "TPM",
      "CONCURRENT",
      "BUDGET USD",
      "SPEND USD",
      "REQUESTS",
      "TOKENS",
      "EXPIRES",
    ],
    data.map((key) => [
      text(key["id"]),
      text(key["name"]),
      text(key["hint"]),
      Array.isArray(key["models"]) ? key["models"].join(",") : "all",
      text(key["rpm"]),
      text(key["tpm"]),
      text(key["max_concurrent"]),
      key["budget_usd"] === null ? "-" : `${key["budget_usd"]} ${key["budget_period"]}`,
      text(key["spend_usd"]),
      text(key["requests"]),
      text(key["tokens"]),
      text(key["expires_at"]),
    ]),
  );
}

/** `keys revoke <id>`: revoked on every replica within a second. */
export async function revokeKeyCommand(options: KeysOptions, id: string): Promise<string> {
  const done = await call(options, "DELETE", `/v1/keys/${encodeURIComponent(id)}`);
  return options.json ? JSON.stringify(done, null, 2) : `key ${id} revoked`;
}
