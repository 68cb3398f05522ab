// Ollama's model listings (/api/tags, /api/show, /api/ps) from what the gateway's fleet knows.
import type { ModelInfo } from "../../backends/types.ts";

/** The Ollama API version the gateway answers /api/version with: clients enable features by it. */
export const OLLAMA_API_VERSION = "0.12.6";

/** Facts the gateway does not know about a model it did not load itself. */
const DETAILS = {
  parent_model: "",
  format: "",
  family: "",
  families: null,
  parameter_size: "",
  quantization_level: "",
};

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

export interface FleetModel {
  info: ModelInfo;
  /** Unix seconds the gateway first saw it. */
  created: number;
}

export function tagsEntry(model: FleetModel): Record<string, unknown> {
  const { id } = model.info;
  return { name: id, model: id, modified_at: iso(model.created), size: 0, digest: "", details: DETAILS };
}

export function psEntry(model: FleetModel): Record<string, unknown> {
  const { id, contextLength } = model.info;
  return {
    name: id,
    model: id,
    size: 0,
    digest: "",
    details: DETAILS,
    expires_at: "0001-01-01T00:00:00Z",
    size_vram: 0,
    ...(contextLength === undefined ? {} : { context_length: contextLength }),
  };
}

export function showBody(model: FleetModel): Record<string, unknown> {
  const { contextLength, capabilities } = model.info;
  const modelInfo: Record<string, unknown> = { "general.architecture": "gateway" };
  if (contextLength !== undefined) modelInfo["gateway.context_length"] = contextLength;
  return {
    modelfile: "",
    parameters: "",
    template: "",
    details: DETAILS,
    model_info: modelInfo,
    // Ollama lists completion, vision, tools, embedding (JSON mode is not one of its capabilities).
    capabilities: [...(capabilities ?? ["completion"])].filter((capability) => capability !== "json").sort(),
    modified_at: iso(model.created),
  };
}
