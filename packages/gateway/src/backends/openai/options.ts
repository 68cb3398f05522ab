import * as z from "zod";

/** `[[backends]]` keys of type "openai": sent as OpenAI-Organization and OpenAI-Project. */
export const openAiOptions = {
  organization: z.string().min(1).optional(),
  project: z.string().min(1).optional(),
};
