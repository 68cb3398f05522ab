import type { BackendModule } from "../module.ts";
import { AnthropicBackend } from "./backend.ts";
import { anthropicOptions } from "./options.ts";

export const anthropic: BackendModule = {
  type: "anthropic",
  kind: "cloud",
  options: anthropicOptions,
  requiresKey: true,
  create: (settings, context) => new AnthropicBackend(settings, context),
};
