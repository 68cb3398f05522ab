import { anthropic } from "./anthropic/index.ts";
import { google } from "./google/index.ts";
import type { BackendModule } from "./module.ts";
import { ollama } from "./ollama/index.ts";
import { openai } from "./openai/index.ts";
import { openAiCompatibleTypes } from "./openai-compatible/index.ts";

/** Every backend type, in the order `type` lists them in messages. A new type is one folder and one line here. */
export const BACKEND_MODULES: readonly BackendModule[] = [ollama, ...openAiCompatibleTypes, openai, anthropic, google];

const BY_TYPE = new Map(BACKEND_MODULES.map((module) => [module.type, module]));

export function backendModule(type: string): BackendModule | undefined {
  return BY_TYPE.get(type);
}
