// The admin API's bodies (POST and PATCH /v1/keys), checked field by field: anything else is a designed 400 naming
// the field, never a 500.
import { type ApiError, invalidRequest } from "../request/errors.ts";
import type { BudgetPeriod, StoredKey } from "../state/types.ts";

/** What a client may set on a key; `null` in a PATCH removes a limit. */
export interface KeyFields {
  name?: string;
  models?: string[] | null;
  rpm?: number | null;
  tpm?: number | null;
  max_concurrent?: number | null;
  budget_usd?: number | null;
  budget_period?: BudgetPeriod;
  expires_at?: string | null;
  metadata?: Record<string, string | number | boolean | null> | null;
}

const FIELDS = new Set([
  "name",
  "models",
  "rpm",
  "tpm",
  "max_concurrent",
  "budget_usd",
  "budget_period",
  "expires_at",
  "metadata",
]);
/** Names become a metrics label and a log field: short, plain characters. */
const NAME = /^[\w .@:/+-]{1,64}$/;
const MAX_MODELS = 256;
const MAX_METADATA_ENTRIES = 32;
const MAX_METADATA_BYTES = 4096;
const MAX_LIMIT = 1e9;
const PERIODS: readonly BudgetPeriod[] = ["daily", "monthly", "total"];
const UNSAFE_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** The fields of a create (`name` required) or a patch body; an ApiError (400) naming the first wrong field. */
export function readKeyFields(body: unknown, mode: "create" | "patch"): KeyFields | ApiError {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return invalidRequest("The body must be a JSON object", null, "invalid_type");
  }
  const input = body as Record<string, unknown>;
  for (const field of Object.keys(input)) {
    if (!FIELDS.has(field)) {
      return invalidRequest(
        `Unknown field "${field.slice(0, 64)}"; known: ${[...FIELDS].join(", ")}`,
        field.slice(0, 64),
        "unknown_parameter",
      );
    }
  }
  const fields: KeyFields = {};
  const removable = mode === "patch";
  if (input["name"] !== undefined || mode === "create") {
    const name = input["name"];
    if (typeof name !== "string" || !NAME.test(name)) {
      return invalidRequest("name must be 1-64 characters: letters, digits, space and _ . @ : / + -", "name");
    }
    fields.name = name;
  }
  for (const field of ["rpm", "tpm", "max_concurrent"] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null && removable) fields[field] = null;
    else if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT)
      fields[field] = value;
    else
      return invalidRequest(
        `${field} must be an integer from 1 to ${MAX_LIMIT}${removable ? ", or null to remove it" : ""}`,
        field,
      );
  }
  const budget = input["budget_usd"];
  if (budget !== undefined) {
    if (budget === null && removable) fields.budget_usd = null;
    else if (typeof budget === "number" && budget > 0 && budget <= MAX_LIMIT) fields.budget_usd = budget;
    else return invalidRequest(`budget_usd must be a number above 0 and at most ${MAX_LIMIT}`, "budget_usd");
  }
  const period = input["budget_period"];
  if (period !== undefined) {
    if (typeof period !== "string" || !PERIODS.includes(period as BudgetPeriod)) {
      return invalidRequest(`budget_period must be one of ${PERIODS.join(", ")}`, "budget_period");
    }
    fields.budget_period = period as BudgetPeriod;
  }
  const models = readModels(input["models"], removable);
  if (models instanceof Error) return models;
  if (models !== undefined) fields.models = models;
  const expires = readExpiry(input["expires_at"], removable);
  if (expires instanceof Error) return expires;
  if (expires !== undefined) fields.expires_at = expires;
  const metadata = readMetadata(input["metadata"], removable);
  if (metadata instanceof Error) return metadata;
  if (metadata !== undefined) fields.metadata = metadata;
  return fields;
}

function readModels(value: unknown, removable: boolean): string[] | null | undefined | ApiError {
  if (value === undefined) return undefined;
  if (value === null && removable) return null;
  const valid =
    Array.isArray(value) &&
    value.length >= 1 &&
    value.length <= MAX_MODELS &&
    value.every((model) => typeof model === "string" && model.length >= 1 && model.length <= 256);
  if (!valid) return invalidRequest(`models must be a list of 1 to ${MAX_MODELS} model names`, "models");
  return [...new Set(value as string[])];
}

function readExpiry(value: unknown, removable: boolean): string | null | undefined | ApiError {
  if (value === undefined) return undefined;
  if (value === null && removable) return null;
  // An ISO 8601 time with a zone, or Unix seconds as OpenAI's timestamps are.
  const time =
    typeof value === "string" && /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(value)
      ? Date.parse(value)
      : typeof value === "number" && Number.isInteger(value) && value > 0
        ? value * 1000
        : Number.NaN;
  if (!Number.isFinite(time) || time > 8.64e15) {
    return invalidRequest(
      "expires_at must be an ISO 8601 time with a zone (2030-01-31T00:00:00Z) or Unix seconds",
      "expires_at",
    );
  }
  return new Date(time).toISOString();
}

function readMetadata(value: unknown, removable: boolean): StoredKey["metadata"] | null | undefined | ApiError {
  if (value === undefined) return undefined;
  if (value === null && removable) return null;
  const problem = invalidRequest(
    `metadata must be an object of at most ${MAX_METADATA_ENTRIES} entries (names up to 64 characters; values strings, numbers, booleans or null; ${MAX_METADATA_BYTES} bytes in all)`,
    "metadata",
  );
  if (value === null || typeof value !== "object" || Array.isArray(value)) return problem;
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_ENTRIES) return problem;
  const metadata: Record<string, string | number | boolean | null> = {};
  for (const [name, item] of entries) {
    if (name.length < 1 || name.length > 64 || UNSAFE_NAMES.has(name)) return problem;
    const scalar = item === null || ["string", "number", "boolean"].includes(typeof item);
    if (!scalar || (typeof item === "number" && !Number.isFinite(item))) return problem;
    metadata[name] = item as string | number | boolean | null;
  }
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) return problem;
  return metadata;
}
