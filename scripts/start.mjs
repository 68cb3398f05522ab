// `npm start`: installs what is missing, then runs both services on the configs in examples/ until interrupted.
// Each service's output is prefixed with its name; SIGINT/SIGTERM stop both and exit 0.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ensureDependencies, root } from "./ensure-deps.mjs";

ensureDependencies();

const services = [
  { name: "bridge", bin: "packages/bridge/bin/switchboard-bridge.mjs", args: ["-conf", "examples/bridge.toml"] },
  {
    name: "gateway",
    bin: "packages/gateway/bin/switchboard-gateway.mjs",
    args: ["serve", "-c", "examples/gateway.toml"],
  },
];

const running = new Map();
let stopping = false;

function prefixLines(stream, name, out) {
  createInterface({ input: stream }).on("line", (line) => out.write(`[${name}] ${line}\n`));
}

for (const service of services) {
  if (!existsSync(join(root, service.bin))) {
    console.log(`[${service.name}] not built yet; skipping`);
    continue;
  }
  const child = spawn(process.execPath, [service.bin, ...service.args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" },
  });
  prefixLines(child.stdout, service.name, process.stdout);
  prefixLines(child.stderr, service.name, process.stderr);
  running.set(service.name, child);
  child.on("exit", (code, signal) => {
    running.delete(service.name);
    if (!stopping) {
      console.error(`[${service.name}] exited (${signal ?? code}); stopping the others`);
      stop(code || 1);
    } else if (running.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
}

if (running.size === 0) {
  console.error("switchboard: no service is built yet");
  process.exit(1);
}

function stop(exitCode) {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  if (running.size === 0) process.exit(exitCode);
  for (const child of running.values()) child.kill("SIGTERM");
  // A service that ignores SIGTERM for 10 s is killed, so Ctrl-C always returns the terminal.
  setTimeout(() => {
    for (const child of running.values()) child.kill("SIGKILL");
  }, 10_000).unref();
}

process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
