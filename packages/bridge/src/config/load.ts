// Reads matterbridge.toml as users have it: TOML 1.0 with keys matched case-insensitively (like Matterbridge/viper).
import { readFileSync } from "node:fs";
import { thrownMessage } from "@switchboard/common";
import { parse, TomlError } from "smol-toml";
import type { ProtocolRegistry } from "./descriptor.ts";
import { applyEnvOverlay } from "./env-overlay.ts";
import { ConfigError } from "./errors.ts";
import { checkMediaKeys } from "./media-keys.ts";
import { lowerKeys, type Table } from "./table.ts";
import type { BridgeConfig } from "./types.ts";
import { validateConfig } from "./validate.ts";

/** Parses TOML text; a syntax error becomes one line naming the file, line and column. */
function parseToml(text: string, path: string): Table {
  try {
    return lowerKeys(parse(text)) as Table;
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split("\n")[0]?.replace(/^Invalid TOML document: /, "") ?? "syntax error";
      throw new ConfigError(`${path}:${error.line}:${error.column}: invalid TOML: ${reason}`);
    }
    throw new ConfigError(`${path}: invalid TOML: ${thrownMessage(error)}`);
  }
}

export interface LoadOptions {
  /** The protocols accounts may use (accounts/registry.ts's PROTOCOLS; tests add their own). */
  protocols: ProtocolRegistry;
  env?: NodeJS.ProcessEnv;
}

/** Reads, parses, overlays the environment and validates; throws ConfigError with one line on any problem. */
export function loadConfig(path: string, options: LoadOptions): BridgeConfig {
  const extension = /\.(json|ya?ml)$/i.exec(path)?.[1];
  if (extension) {
    throw new ConfigError(`${path}: ${extension.toUpperCase()} configs are not supported; write the same keys as TOML`);
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (code ?? "unreadable");
    throw new ConfigError(`cannot read config ${path}: ${why} (give another one with -conf FILE)`);
  }
  return configFromText(text, path, options);
}

/** Parses, overlays the environment and validates TOML text (the file is already read). */
export function configFromText(text: string, path: string, options: LoadOptions): BridgeConfig {
  const raw = parseToml(text, path);
  applyEnvOverlay(raw, options.env ?? process.env, options.protocols);
  return checkMediaKeys(validateConfig(raw, { path, protocols: options.protocols }));
}
