// The Portkey gateway (@portkey-ai/gateway 1.15.2) as a peer: installed on demand into bench/.peers/portkey
// (gitignored), and a patched copy of its bundle for streaming (see PATCH below).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PORTKEY_VERSION = "1.15.2";

export interface PortkeyInstall {
  /** The stock bundle. */
  stock: string;
  /** The bundle with the immutable-headers patch, or undefined when the patch no longer applies. */
  patched: string | undefined;
}

/**
 * On Node 20, Portkey 1.15.2 answers every streamed request with 500 "TypeError: immutable": the @hono/node-server it
 * resolves returns a Response whose headers are immutable, and Portkey's responseService.updateHeaders appends to them
 * (Portkey-AI/gateway issues #1389 and #1550). The patch, as in the reference study, copies the response into one with
 * mutable headers before updateHeaders runs (one extra Response per request).
 */
const PATCH_FROM = "this.updateHeaders(i,n.cacheStatus,o),{response:i";
const PATCH_TO =
  '(i=(()=>{try{i.headers.set("x-bench-probe","1");i.headers.delete("x-bench-probe");return i}catch{' +
  "return new Response(i.body,{status:i.status,statusText:i.statusText,headers:new Headers(i.headers)})}})())," +
  PATCH_FROM;

/** Installs Portkey into `peersDir`/portkey if it is not there yet; returns the bundles to run. */
export function installPortkey(peersDir: string, log: (line: string) => void): PortkeyInstall {
  const dir = join(peersDir, "portkey");
  const build = join(dir, "node_modules", "@portkey-ai", "gateway", "build");
  const stock = join(build, "start-server.js");
  if (!existsSync(stock)) {
    log(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${dir} (once)`);
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, "package.json"))) {
      writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "bench-peer-portkey", private: true })}\n`);
    }
    const result = spawnSync(
      "npm",
      ["install", "--no-audit", "--no-fund", "--ignore-scripts", `@portkey-ai/gateway@${PORTKEY_VERSION}`],
      { cwd: dir, encoding: "utf8", timeout: 300_000 },
    );
    if (result.status !== 0 || !existsSync(stock)) {
      throw new Error(`npm install failed: ${(result.stderr || result.stdout || String(result.error)).slice(-500)}`);
    }
  }
  const patchedPath = join(build, "start-server.patched.js");
  const source = readFileSync(stock, "utf8");
  if (!source.includes(PATCH_FROM)) return { stock, patched: undefined };
  if (!existsSync(patchedPath)) writeFileSync(patchedPath, source.replace(PATCH_FROM, PATCH_TO));
  return { stock, patched: patchedPath };
}

/** The request headers that route Portkey to an OpenAI-compatible upstream. */
export function portkeyHeaders(upstreamUrl: string): Record<string, string> {
  return {
    authorization: "Bearer sk-bench",
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": `${upstreamUrl}/v1`,
  };
}
