import type { Candidate, Filter, FilterContext, RejectionReason } from "../types.ts";
import { keep } from "./keep.ts";

function missing(
  candidate: Candidate,
  context: FilterContext,
): { reason: RejectionReason; detail: string } | undefined {
  const needs = context.requirements;
  if (needs.api !== undefined && !candidate.nativeApis?.has(needs.api)) {
    return { reason: "api_unsupported", detail: `the request holds what only ${needs.api} backends take` };
  }
  const model = candidate.modelsById.get(context.model);
  const capabilities = model?.capabilities;
  // Unknown capabilities never exclude: only what the backend says it cannot do does.
  if (capabilities) {
    if (needs.kind === "embeddings" && !capabilities.has("embeddings")) {
      return { reason: "embeddings_unsupported", detail: "the model does not produce embeddings" };
    }
    if (needs.kind === "chat" && !capabilities.has("completion") && capabilities.has("embeddings")) {
      return { reason: "chat_unsupported", detail: "the model is an embedding model" };
    }
    if (needs.vision && !capabilities.has("vision"))
      return { reason: "vision_unsupported", detail: "the request has image parts" };
    if (needs.tools && !capabilities.has("tools"))
      return { reason: "tools_unsupported", detail: "the request has tools" };
    if (needs.json && !capabilities.has("json"))
      return { reason: "json_mode_unsupported", detail: "the request asks for JSON output" };
  }
  const context_length = model?.contextLength;
  if (context_length !== undefined && needs.estimatedTokens > context_length) {
    return {
      reason: "context_length_exceeded",
      detail: `about ${needs.estimatedTokens} prompt tokens exceed the context length ${context_length}`,
    };
  }
  return undefined;
}

/** The API the request needs, vision for image parts, tools, JSON mode, embeddings vs chat, prompt size. */
export const capabilityFilter: Filter = (candidates, context, rejected) => keep(candidates, context, rejected, missing);
