import type { Capability, StaticModelConfig } from "../config/types.ts";
import type { ModelInfo } from "./types.ts";

const CONTEXT_KEYS = ["context_length", "max_model_len", "context_window", "max_context_length", "n_ctx"] as const;

function positiveInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Reads one entry of an OpenAI-style `GET /v1/models` list, keeping the facts servers add (vLLM, llama.cpp, LM Studio). */
export function modelFromListEntry(entry: unknown): ModelInfo | undefined {
  if (entry === null || typeof entry !== "object") return undefined;
  const record = entry as Record<string, unknown>;
  const id = record["id"];
  if (typeof id !== "string" || id === "") return undefined;
  let contextLength: number | undefined;
  for (const key of CONTEXT_KEYS) {
    contextLength ??= positiveInt(record[key]);
  }
  const meta = record["meta"];
  if (contextLength === undefined && meta && typeof meta === "object") {
    contextLength = positiveInt((meta as Record<string, unknown>)["n_ctx_train"]);
  }
  const capabilities = capabilitySet(record["capabilities"]);
  return { id, contextLength, capabilities, created: positiveInt(record["created"]) };
}

// A Map: the names come from backends, and "constructor" must not find Object's.
const CAPABILITY_NAMES: ReadonlyMap<string, Capability> = new Map([
  ["completion", "completion"],
  ["chat", "completion"],
  ["vision", "vision"],
  ["tools", "tools"],
  ["json", "json"],
  ["json_mode", "json"],
  ["embedding", "embeddings"],
  ["embeddings", "embeddings"],
]);

/** A capability list in any of the spellings servers use (array of names, or an object of booleans). */
export function capabilitySet(value: unknown): ReadonlySet<Capability> | undefined {
  if (Array.isArray(value)) {
    const set = new Set<Capability>();
    for (const item of value) {
      const name = typeof item === "string" ? CAPABILITY_NAMES.get(item.toLowerCase()) : undefined;
      if (name) set.add(name);
    }
    return set;
  }
  if (value && typeof value === "object") {
    const set = new Set<Capability>();
    for (const [key, enabled] of Object.entries(value as Record<string, unknown>)) {
      const name = CAPABILITY_NAMES.get(key.toLowerCase());
      if (name && enabled === true) set.add(name);
    }
    return set;
  }
  return undefined;
}

/** Discovered models overlaid with the models configured statically for the backend (configuration wins). */
export function mergeStaticModels(discovered: ModelInfo[], configured: readonly StaticModelConfig[]): ModelInfo[] {
  if (configured.length === 0) return discovered;
  const byId = new Map(discovered.map((model) => [model.id, model]));
  for (const model of configured) {
    const found = byId.get(model.id);
    byId.set(model.id, {
      id: model.id,
      contextLength: model.context_length ?? found?.contextLength,
      capabilities: model.capabilities ? new Set(model.capabilities) : found?.capabilities,
      created: found?.created,
    });
  }
  return [...byId.values()];
}
