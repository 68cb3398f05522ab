import type { LongText } from "./long-text.ts";

/** An input text; a LongText when it stayed in the parse worker (its bytes are forwarded from the client's body). */
export type EmbeddingText = string | LongText;

/** An embeddings request as validation leaves it. */
export interface EmbeddingsInput {
  model: string;
  input: EmbeddingText | EmbeddingText[];
  encodingFormat: "float" | "base64" | undefined;
}
