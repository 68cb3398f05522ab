/** A model as the Gemini API lists it (GET /v1beta/models). */
export interface GeminiListedModel {
  id: string;
  contextLength: number | undefined;
  embeds: boolean;
}

export function geminiModel(model: GeminiListedModel): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: `models/${model.id}`,
    version: "001",
    displayName: model.id,
    supportedGenerationMethods: model.embeds ? ["embedContent"] : ["generateContent", "countTokens"],
  };
  if (model.contextLength !== undefined) entry["inputTokenLimit"] = model.contextLength;
  return entry;
}
