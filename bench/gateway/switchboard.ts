// Switchboard's gateway as the system under test: its configuration for the bench, and how it is started.

import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serviceBin } from "../service-bin.ts";

/** The gateway's config in Nexus's format with nothing but its address and one backend, the fake upstream. */
export function minimalSwitchboardConfig(port: number, upstreamUrl: string): string {
  return [serverLines(port), "", backendLines(upstreamUrl)].join("\n");
}

/**
 * The gateway's config in Nexus's format, with every feature set as in examples/gateway.toml (health checks, smart
 * routing with its weights, aliases, fallbacks, info logging: one access line per request), and one generic
 * OpenAI-compatible backend, the fake upstream.
 */
export function switchboardConfig(port: number, upstreamUrl: string): string {
  return [
    serverLines(port),
    "request_timeout_seconds = 300",
    "body_limit_bytes = 10485760",
    "client_timeout_seconds = 30",
    "",
    "[health_check]",
    "enabled = true",
    "interval_seconds = 30",
    "timeout_seconds = 5",
    "failure_threshold = 3",
    "recovery_threshold = 2",
    "",
    "[routing]",
    'strategy = "smart"',
    "max_retries = 2",
    "",
    "[routing.weights]",
    "priority = 50",
    "load = 30",
    "latency = 20",
    "",
    "[routing.aliases]",
    '"gpt-3.5-turbo" = "llama3.2:3b"',
    "",
    "[routing.fallbacks]",
    '"llama3.1:70b" = ["llama3.1:8b", "llama3.2:3b"]',
    "",
    "[logging]",
    `level = "${process.env["BENCH_LOG_LEVEL"] ?? "info"}"`,
    "",
    backendLines(upstreamUrl),
  ].join("\n");
}

function serverLines(port: number): string {
  return ["[server]", 'host = "127.0.0.1"', `port = ${port}`].join("\n");
}

function backendLines(upstreamUrl: string): string {
  return [
    "[[backends]]",
    'name = "bench-upstream"',
    `url = "${upstreamUrl}"`,
    'type = "generic"',
    "priority = 1",
    "",
    // BENCH_TRACING=1: spans on through the OpenTelemetry API with no SDK loaded (its no-op tracer), to compare
    // with tracing off (the default: nothing subscribed at all).
    ...(process.env["BENCH_TRACING"] === "1" ? ["[tracing]", "enabled = true", ""] : []),
  ].join("\n");
}

/** Writes the config into a fresh temporary folder; returns the file's path. */
export function writeSwitchboardConfig(port: number, upstreamUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), "switchboard-bench-"));
  const file = join(dir, "gateway.toml");
  writeFileSync(file, switchboardConfig(port, upstreamUrl));
  return file;
}

/** Why the gateway cannot be benchmarked from `root`, or undefined when its bin is there. */
export function switchboardMissing(root: string): string | undefined {
  if (!existsSync(join(root, "packages/gateway/package.json"))) return "packages/gateway does not exist yet";
  const bin = serviceBin(root, "gateway");
  if (!existsSync(bin)) return `${bin} does not exist yet`;
  if (!existsSync(join(root, "packages/gateway/src/cli.ts"))) return "packages/gateway/src/cli.ts does not exist yet";
  return undefined;
}
