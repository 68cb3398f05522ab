import { request } from "undici";
import { table } from "./table.ts";

export interface QueryOptions {
  url: string;
  json?: boolean;
}

export class QueryError extends Error {
  override readonly name = "QueryError";
}

async function getJson(base: string, path: string): Promise<{ status: number; body: unknown }> {
  const url = `${base.replace(/\/+$/, "")}${path}`;
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, { headersTimeout: 10_000, bodyTimeout: 10_000, reset: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new QueryError(
      `cannot reach the gateway at ${base} (${code ?? (error as Error).message}); is it running? (--url)`,
    );
  }
  const text = await response.body.text();
  try {
    return { status: response.statusCode, body: JSON.parse(text) };
  } catch {
    throw new QueryError(`${url} answered HTTP ${response.statusCode} without JSON; is ${base} a Switchboard gateway?`);
  }
}

type Row = Record<string, unknown>;
const text = (value: unknown) => (value === null || value === undefined ? "-" : String(value));

/** `backends`: name, type, status, models, latency, load, from GET /v1/stats. */
export async function backendsCommand(options: QueryOptions): Promise<string> {
  const { body } = await getJson(options.url, "/v1/stats");
  const backends = ((body as Row)["backends"] ?? []) as Row[];
  if (options.json) return JSON.stringify({ backends }, null, 2);
  return table(
    ["NAME", "TYPE", "STATUS", "MODELS", "PROBE MS", "REQUESTS", "AVG MS", "PENDING", "URL"],
    backends.map((b) => [
      text(b["name"]),
      text(b["type"]),
      text(b["status"]),
      String((b["models"] as unknown[] | undefined)?.length ?? 0),
      text(b["probe_latency_ms"]),
      text(b["requests"]),
      text(b["average_latency_ms"]),
      text(b["pending"]),
      text(b["url"]),
    ]),
  );
}

/** `models`: one row per model per healthy backend, from GET /v1/models. */
export async function modelsCommand(options: QueryOptions): Promise<string> {
  const { body } = await getJson(options.url, "/v1/models");
  const data = ((body as Row)["data"] ?? []) as Row[];
  if (options.json) return JSON.stringify({ models: data }, null, 2);
  return table(
    ["MODEL", "BACKEND", "CONTEXT", "CAPABILITIES"],
    data.map((m) => [
      text(m["id"]),
      text(m["owned_by"]),
      text(m["context_length"]),
      Array.isArray(m["capabilities"]) ? m["capabilities"].join(",") : "-",
    ]),
  );
}

/** `health`: the GET /health body; the exit code says whether it is unhealthy (or still starting). */
export async function healthCommand(options: QueryOptions): Promise<{ output: string; healthy: boolean }> {
  const { body } = await getJson(options.url, "/health");
  const health = body as Row;
  const healthy = health["status"] !== "unhealthy" && health["status"] !== "starting";
  if (options.json) return { output: JSON.stringify(health, null, 2), healthy };
  const backends = (health["backends"] ?? {}) as Row;
  const models = (health["models"] ?? {}) as Row;
  const output = table(
    ["STATUS", "VERSION", "UPTIME S", "BACKENDS", "HEALTHY", "UNHEALTHY", "MODELS"],
    [
      [
        text(health["status"]),
        text(health["version"]),
        text(health["uptime_seconds"]),
        text(backends["total"]),
        text(backends["healthy"]),
        text(backends["unhealthy"]),
        text(models["total"]),
      ],
    ],
  );
  return { output, healthy };
}
