import * as z from "zod";

/** `[[backends]]` keys of type "anthropic". */
export const anthropicOptions = {
  /** Sent as `anthropic-version`. */
  anthropic_version: z.string().min(1).optional(),
  /** `max_tokens` when the client gives none (Anthropic requires one). */
  default_max_tokens: z.number().int().min(1).optional(),
};
