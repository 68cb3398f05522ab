import { z } from "zod";
import type { BackendModule } from "../module.ts";
import { OpenAiCloudBackend } from "./backend.ts";

/** `[[backends]]` keys of type "openai": sent as OpenAI-Organization and OpenAI-Project. */
export const openAiOptions = {
  organization: z.string().min(1).optional(),
  project: z.string().min(1).optional(),
};

/** OpenAI itself: pass-through with the configured key, usage observed for spend. */
export const openai: BackendModule = {
  type: "openai",
  kind: "cloud",
  options: openAiOptions,
  requiresKey: true,
  create: (settings, context) => new OpenAiCloudBackend(settings, context),
};
