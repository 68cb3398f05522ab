import type { BackendModule } from "../module.ts";
import { OpenAiCloudBackend } from "./backend.ts";
import { openAiOptions } from "./options.ts";

/** OpenAI itself: pass-through with the configured key, usage observed for spend. */
export const openai: BackendModule = {
  type: "openai",
  kind: "cloud",
  options: openAiOptions,
  requiresKey: true,
  create: (settings, context) => new OpenAiCloudBackend(settings, context),
};
