/** Gemini's model calls: /{version}/models/{model}:{method}, the model possibly holding colons (Ollama's names). */
const MODEL_CALL = /^\/(v1beta|v1)\/models\/(.+):([A-Za-z]+)$/;

export interface GeminiCall {
  version: "v1beta" | "v1";
  model: string;
  method: string;
}

/** The call a Gemini path names (the query left aside), or undefined for any other path. */
export function geminiCallOf(url: string): GeminiCall | undefined {
  const path = url.split("?")[0] ?? "";
  const match = MODEL_CALL.exec(path);
  if (match === null) return undefined;
  let model: string;
  try {
    model = decodeURIComponent(match[2]!);
  } catch {
    return undefined;
  }
  return { version: match[1] as GeminiCall["version"], model: model.replace(/^models\//, ""), method: match[3]! };
}

/** Whether a request speaks the Gemini API (for its error envelope and its key header). */
export function isGeminiPath(url: string): boolean {
  return url.startsWith("/v1beta/") || geminiCallOf(url) !== undefined;
}
