import type { Candidate, Filter, FilterContext, Rejection, RejectionReason } from "../types.ts";

function missing(candidate: Candidate, context: FilterContext): [RejectionReason, string] | undefined {
  const model = candidate.modelsById.get(context.model);
  const needs = context.requirements;
  const capabilities = model?.capabilities;
  // Unknown capabilities never exclude: only what the backend says it cannot do does.
  if (capabilities) {
    if (needs.kind === "embeddings" && !capabilities.has("embeddings")) {
      return ["embeddings_unsupported", "the model does not produce embeddings"];
    }
    if (needs.kind === "chat" && !capabilities.has("completion") && capabilities.has("embeddings")) {
      return ["chat_unsupported", "the model is an embedding model"];
    }
    if (needs.vision && !capabilities.has("vision")) return ["vision_unsupported", "the request has image parts"];
    if (needs.tools && !capabilities.has("tools")) return ["tools_unsupported", "the request has tools"];
    if (needs.json && !capabilities.has("json")) return ["json_mode_unsupported", "the request asks for JSON output"];
  }
  const context_length = model?.contextLength;
  if (context_length !== undefined && needs.estimatedTokens > context_length) {
    return [
      "context_length_exceeded",
      `about ${needs.estimatedTokens} prompt tokens exceed the context length ${context_length}`,
    ];
  }
  return undefined;
}

/** Vision for image parts, tools, JSON mode, embeddings vs chat, prompt size vs context length. */
export const capabilityFilter: Filter = (candidates, context, rejected: Rejection[]) =>
  candidates.filter((candidate) => {
    const problem = missing(candidate, context);
    if (!problem) return true;
    rejected.push({ backend: candidate.name, model: context.model, reason: problem[0], detail: problem[1] });
    return false;
  });
