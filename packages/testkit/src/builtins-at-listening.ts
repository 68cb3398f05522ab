// Which of node's own modules a process has loaded when its first server starts listening: what its start-up paid for
// before the port opened. node runs the command with a preload that reports process.moduleLoadList at that moment.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess } from "./process.ts";

const REPORT = "builtins at listening:";

const PRELOAD = `"use strict";
const net = require("node:net");
const emit = net.Server.prototype.emit;
let reported = false;
net.Server.prototype.emit = function (event, ...rest) {
  if (event === "listening" && !reported) {
    reported = true;
    const loaded = process.moduleLoadList
      .filter((entry) => entry.startsWith("NativeModule ") && !entry.startsWith("NativeModule internal/"))
      .map((entry) => entry.slice("NativeModule ".length));
    process.stderr.write(${JSON.stringify(REPORT)} + " " + loaded.join(" ") + "\\n");
  }
  return emit.call(this, event, ...rest);
};
`;

/** Runs `node <args>` until its first server listens, stops it, and returns the public built-ins it had loaded. */
export async function builtinsLoadedAtListening(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Set<string>> {
  const dir = mkdtempSync(join(tmpdir(), "builtins-at-listening-"));
  const preload = join(dir, "preload.cjs");
  writeFileSync(preload, PRELOAD);
  try {
    const child = await startProcess({
      command: process.execPath,
      args: ["--require", preload, ...args],
      env: options.env ?? process.env,
      cwd: options.cwd,
      ready: { line: REPORT },
      name: "builtins-at-listening",
      timeoutMs: 20_000,
    });
    await child.stop();
    const line = child.readyLine ?? "";
    const names = line.slice(line.indexOf(REPORT) + REPORT.length).trim();
    return new Set(names.split(" "));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
