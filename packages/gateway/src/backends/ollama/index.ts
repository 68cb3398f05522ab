import type { BackendModule } from "../module.ts";
import { OllamaBackend } from "./backend.ts";

export const ollama: BackendModule = {
  type: "ollama",
  kind: "local",
  options: {},
  requiresKey: false,
  create: (settings, context) => new OllamaBackend(settings, context),
};
