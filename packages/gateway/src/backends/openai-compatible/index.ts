import type { BackendModule } from "../module.ts";
import { OpenAICompatibleBackend } from "./backend.ts";

/**
 * A local server speaking OpenAI's API: requests and answers pass through byte for byte. Each of them but exo (chat
 * only) serves text completions too.
 */
function localOpenAiType(type: string): BackendModule {
  const completions = type !== "exo";
  return {
    type,
    kind: "local",
    options: {},
    requiresKey: false,
    create: (settings, context) => new OpenAICompatibleBackend(settings, context, { completions }),
  };
}

export const openAiCompatibleTypes: readonly BackendModule[] = ["vllm", "llamacpp", "lmstudio", "exo", "generic"].map(
  localOpenAiType,
);
