import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Teardown } from "@switchboard/testkit";
import pino from "pino";
import { request } from "undici";
import { type RunningGateway, startGateway } from "../src/gateway.ts";
import { parseConfigText } from "../src/load-config.ts";
import type { EventOf, EventType } from "../src/telemetry/events.ts";

/**
 * Routing for the tests that fail a backend on purpose and watch where requests go: by priority alone, two retries,
 * the failed backend quickly healthy again and never excluded for its error rate.
 */
export const FAILOVER_ROUTING =
  '[routing]\nstrategy = "priority_only"\nmax_retries = 2\n[health_check]\ninterval_seconds = 0.2\n' +
  "[quality]\nmin_requests = 1000\n";

/** A `[[backends]]` entry for TOML. */
export function backendToml(name: string, url: string, type = "vllm", extra = ""): string {
  return `[[backends]]\nname = "${name}"\nurl = "${url}"\ntype = "${type}"\n${extra}\n`;
}

/** Collects closers registered during a `before` hook, run by the suite's own `after` (closeAll). */
export class Closers {
  readonly #closers: (() => Promise<void> | void)[] = [];
  after(fn: () => Promise<void> | void): void {
    this.#closers.push(fn);
  }
  async closeAll(): Promise<void> {
    for (const fn of this.#closers.reverse()) await fn();
  }
}

/** This test process's folder of state files, removed when it exits. */
let stateRoot: string | undefined;

/**
 * `toml` with state files of its own, unless it names them: a gateway holds its state files (one process per file),
 * and the defaults (beside the configuration, or in the working folder) are shared by every test process. The files
 * go to a folder of this test process, removed when it exits.
 */
export function withOwnStateFiles(toml: string): string {
  if (stateRoot === undefined) {
    const root = mkdtempSync(join(tmpdir(), "gateway-test-"));
    process.once("exit", () => rmSync(root, { recursive: true, force: true }));
    stateRoot = root;
  }
  const dir = mkdtempSync(join(stateRoot, "gateway-"));
  let text = toml;
  if (!/^\[state\]/m.test(text)) text += `\n[state]\npath = ${JSON.stringify(join(dir, "gateway-state.json"))}\n`;
  if (!text.includes("state_file")) {
    const spend = `[budget]\nstate_file = ${JSON.stringify(join(dir, "gateway-spend.json"))}\n`;
    text = text.replace(/^\[budget\]\n/m, spend);
  }
  return text;
}

/**
 * Starts the gateway in-process on a free port with `toml` (server.port is set to 0), with state files of its own
 * (withOwnStateFiles); stopped when the test ends.
 */
export async function startTestGateway(
  toml: string,
  teardown: Teardown,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningGateway> {
  let text = toml.includes("[server]") ? toml : `[server]\nport = 0\n${toml}`;
  // Tests run side by side: a gateway only browses mDNS when its test asks for it.
  if (!text.includes("[discovery]")) text += "\n[discovery]\nenabled = false\n";
  const config = parseConfigText(withOwnStateFiles(text), "test.toml", env);
  const gateway = await startGateway(config, pino({ level: "silent" }));
  teardown.after(async () => {
    await gateway.close();
  });
  return gateway;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  json: () => any;
}

/** A raw HTTP request (for errors and headers); never throws on a status. */
export async function http(
  url: string,
  options: { method?: "GET" | "POST" | "DELETE"; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const response = await request(url, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers: options.body === undefined ? options.headers : { "content-type": "application/json", ...options.headers },
    body: options.body,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http(url, { method: "POST", body: JSON.stringify(body), headers });
}

export const hello = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content: "hello" }],
  ...extra,
});

/** The `data:` payloads of an SSE body, in order. */
export function sseData(text: string): string[] {
  return text
    .split("\n\n")
    .filter((event) => event.trim() !== "")
    .map((event) =>
      event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n"),
    );
}

/** Resolves once `count` events of `type` (that `match` accepts) were emitted from now on; rejects after 10 s. */
export function eventCount<T extends EventType>(
  gateway: RunningGateway,
  type: T,
  count: number,
  match: (event: EventOf<T>) => boolean = () => true,
): Promise<void> {
  let seen = 0;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`only ${seen} of ${count} ${type} events within 10 s`));
    }, 10_000);
    const off = gateway.events.on(type, (event) => {
      if (!match(event) || ++seen < count) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
