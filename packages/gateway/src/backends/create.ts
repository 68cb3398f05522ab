import type { BackendSettings } from "../config/types.ts";
import type { BackendContext } from "./module.ts";
import { backendModule } from "./registry.ts";
import type { Backend } from "./types.ts";

/** The adapter for a configured backend (config has already checked that its type exists). */
export function createBackend(settings: BackendSettings, context: BackendContext): Backend {
  const module = backendModule(settings.type);
  if (!module) throw new Error(`backend type "${settings.type}" is not registered`);
  return module.create(settings, context);
}
