// The paths under test that need more than starting a process: Switchboard (generated config, readiness probes) and
// Portkey (install on demand, the stock build for JSON and the patched build for streams).
import { dirname, join } from "node:path";
import { freePort, type ManagedProcess } from "@switchboard/testkit";
import { serviceBin } from "../service-bin.ts";
import { installPortkey, portkeyHeaders } from "./portkey.ts";
import { probe } from "./run.ts";
import { switchboardMissing, writeSwitchboardConfig } from "./switchboard.ts";
import type { TargetName } from "./table.ts";
import { BENCH_MODEL } from "./upstream.ts";

export const chatBody = (stream: boolean) =>
  JSON.stringify({
    model: BENCH_MODEL,
    messages: [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Write one sentence about foxes and dogs, please." },
    ],
    temperature: 0.7,
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
  });

export interface Target {
  name: TargetName;
  url?: string;
  headers?: Record<string, string>;
  /** For streams, when the stock server cannot serve them (another URL, or none). */
  streamUrl?: string;
  unavailable?: string;
  streamNote?: string;
  /** Its own server process first (CPU per request is read from it), then the upstream. */
  pids: number[];
  /** For streams, when another process serves them. */
  streamPids?: number[];
}

/** What the starters need from the bench. */
export interface StartContext {
  root: string;
  startServer(name: string, args: string[], port: number, cwd?: string): Promise<ManagedProcess>;
  profileFlags(name: string): string[];
  log(line: string): void;
  /** Folders to remove when the bench ends. */
  temporaryDirs: string[];
}

function firstLines(error: unknown): string {
  return error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
}

export async function startSwitchboard(
  { root, startServer, profileFlags, temporaryDirs }: StartContext,
  upstreamUrl: string,
  upstreamPid: number,
  /** "before": an earlier build of the gateway (`--before DIR`), measured in the same run for before/after. */
  name: "switchboard" | "before" = "switchboard",
): Promise<Target> {
  const missing = switchboardMissing(root);
  if (missing) return { name, unavailable: missing, pids: [] };
  const port = await freePort();
  const config = writeSwitchboardConfig(port, upstreamUrl);
  temporaryDirs.push(dirname(config));
  const profile = profileFlags(name);
  try {
    const gateway = await startServer(name, [...profile, serviceBin(root, "gateway"), "serve", "-c", config], port);
    const url = `http://127.0.0.1:${port}`;
    const failure = await probe(`${url}/v1/chat/completions`, chatBody(false), {}, "chatcmpl-bench", 20_000);
    if (failure) return { name, unavailable: `its answer was wrong: ${failure}`, pids: [] };
    const streamFailure = await probe(`${url}/v1/chat/completions`, chatBody(true), {}, "data: [DONE]", 5_000);
    return {
      name,
      url,
      pids: [gateway.pid, upstreamPid],
      streamNote: streamFailure ? `streaming failed: ${streamFailure}` : undefined,
      streamUrl: streamFailure ? "" : undefined,
    };
  } catch (error) {
    return { name, unavailable: `did not start: ${firstLines(error)}`, pids: [] };
  }
}

export async function startPortkey(
  { root, startServer, log }: StartContext,
  upstreamUrl: string,
  upstreamPid: number,
): Promise<Target> {
  let install: ReturnType<typeof installPortkey>;
  try {
    install = installPortkey(join(root, "bench", ".peers"), log);
  } catch (error) {
    return { name: "portkey", unavailable: `install failed: ${String(error)}`, pids: [] };
  }
  const headers = portkeyHeaders(upstreamUrl);
  const cwd = dirname(install.stock);
  const port = await freePort();
  let stock: ManagedProcess;
  try {
    stock = await startServer("portkey", [install.stock, `--port=${port}`, "--headless"], port, cwd);
  } catch (error) {
    return { name: "portkey", unavailable: `did not start: ${firstLines(error)}`, pids: [] };
  }
  const url = `http://127.0.0.1:${port}`;
  const failure = await probe(`${url}/v1/chat/completions`, chatBody(false), headers, "chatcmpl-bench", 10_000);
  if (failure) return { name: "portkey", unavailable: `its answer was wrong: ${failure}`, pids: [] };
  const stockStream = await probe(`${url}/v1/chat/completions`, chatBody(true), headers, "data: [DONE]", 3_000);
  if (!stockStream) return { name: "portkey", url, headers, pids: [stock.pid, upstreamPid] };
  log(`stock Portkey ${"cannot stream"}: ${stockStream}`);
  if (!install.patched) {
    return {
      name: "portkey",
      url,
      headers,
      streamUrl: "",
      streamNote: `stock build fails: ${stockStream}`,
      pids: [stock.pid, upstreamPid],
    };
  }
  const patchedPort = await freePort();
  let patched: ManagedProcess;
  try {
    patched = await startServer(
      "portkey-patched",
      [install.patched, `--port=${patchedPort}`, "--headless"],
      patchedPort,
      cwd,
    );
  } catch (error) {
    const streamNote = `stock build fails (${stockStream}); the patched build did not start: ${firstLines(error)}`;
    return { name: "portkey", url, headers, streamUrl: "", streamNote, pids: [stock.pid, upstreamPid] };
  }
  const patchedUrl = `http://127.0.0.1:${patchedPort}`;
  const patchedFailure = await probe(
    `${patchedUrl}/v1/chat/completions`,
    chatBody(true),
    headers,
    "data: [DONE]",
    5_000,
  );
  return {
    name: "portkey",
    url,
    headers,
    streamUrl: patchedFailure ? "" : patchedUrl,
    streamNote: patchedFailure
      ? `stock build fails (${stockStream}); the patched build too (${patchedFailure})`
      : `stock build answers 500 ("TypeError: immutable"); streamed rows use the 2-line patched build`,
    pids: [stock.pid, upstreamPid],
    streamPids: [patched.pid, upstreamPid],
  };
}
