import type { BackendModule } from "../module.ts";
import { OpenAICompatibleBackend } from "./backend.ts";

/** A local server speaking OpenAI's API: requests and answers pass through byte for byte. */
function localOpenAiType(type: string): BackendModule {
  return {
    type,
    kind: "local",
    options: {},
    requiresKey: false,
    create: (settings, context) => new OpenAICompatibleBackend(settings, context),
  };
}

export const openAiCompatibleTypes: readonly BackendModule[] = ["vllm", "llamacpp", "lmstudio", "exo", "generic"].map(
  localOpenAiType,
);
