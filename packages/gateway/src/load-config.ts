// The configuration of this gateway: config/ validated against the backend types of backends/'s registry. The one
// place that joins the two, so that config/ (the bottom layer) never imports backends/.
import { BACKEND_MODULES } from "./backends/registry.ts";
import { type LoadOptions, loadConfigFor, parseConfigTextFor } from "./config/load.ts";
import type { GatewayConfig } from "./config/types.ts";

/** Loads, validates and overlays the configuration: CLI flags > environment > file > defaults. Throws ConfigError. */
export function loadConfig(options: LoadOptions = {}): GatewayConfig {
  return loadConfigFor(BACKEND_MODULES, options);
}

/** Parses configuration TOML text (tests, `config init` verification, backends found at run time). */
export function parseConfigText(text: string, source: string, env: NodeJS.ProcessEnv = {}): GatewayConfig {
  return parseConfigTextFor(BACKEND_MODULES, text, source, env);
}
