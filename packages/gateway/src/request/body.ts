/** The body as parsed once by the JSON content-type parser, with the bytes it came from. */
export interface JsonBody {
  raw: Buffer;
  value: unknown;
  /**
   * Set when the long texts stayed in the parse worker (`value` holds LongText in their place; see long-texts.ts):
   * the byte ranges in `raw` of the top-level "model" value (where a different model name is spliced in) and of the
   * "input" value (embeddings, re-encoded for Ollama from these bytes).
   */
  slim?: { modelRange: [number, number] | undefined; inputRange: [number, number] | undefined };
}
