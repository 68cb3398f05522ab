import type { BackendSettings } from "../config/types.ts";
import type { ClientTimeouts } from "./http-client.ts";
import { OllamaBackend } from "./ollama.ts";
import { OpenAICompatibleBackend } from "./openai-compatible.ts";
import type { Backend } from "./types.ts";

/** The adapter for a configured backend type. anthropic and google are rejected when the config is loaded. */
export function createBackend(settings: BackendSettings, timeouts: ClientTimeouts): Backend {
  switch (settings.type) {
    case "ollama":
      return new OllamaBackend(settings, timeouts);
    case "vllm":
    case "llamacpp":
    case "lmstudio":
    case "exo":
    case "generic":
    case "openai":
      return new OpenAICompatibleBackend(settings, timeouts);
    default:
      throw new Error(`backend type "${settings.type}" is not supported yet`);
  }
}
