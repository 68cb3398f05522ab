// `npm start`: installs what is missing, builds dist/ when stale, then runs both services on the configs in examples/
// until interrupted. The gateway needs an Ollama: unless one already listens on its port, an Ollama simulator from
// the testkit is started first (canned answers, the model names the docs use), so the docs' examples work at once.
// Each process's output is prefixed with its name; SIGINT/SIGTERM stop all of them and exit 0.
// For production, run each service's bin directly (docs/operations.md), not this script.
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { buildPackages } from "./build.mjs";
import { ensureDependencies, ensureNativeAddons, root } from "./ensure-deps.mjs";

ensureDependencies();
ensureNativeAddons();
await buildPackages({ ifStale: true });

// Where examples/gateway.toml's backend "local-ollama" points.
const OLLAMA_PORT = 11434;
// The models docs/gateway.md and README use; llama3.1:70b is left out on purpose so that the example's fallback
// (llama3.1:70b -> llama3.1:8b) can be seen working.
const SIMULATED_MODELS = ["--model", "llama3.2:3b", "--model", "llama3.1:8b", "--embedding-model", "nomic-embed-text"];
const SIMULATOR = "ollama-simulator";

const services = [
  { name: "bridge", args: ["packages/bridge/bin/switchboard-bridge.cjs", "-conf", "examples/bridge.toml"] },
  { name: "gateway", args: ["packages/gateway/bin/switchboard-gateway.cjs", "serve", "-c", "examples/gateway.toml"] },
];

const running = new Map();
let stopping = false;

function prefixLines(stream, name, out, onLine = () => {}) {
  createInterface({ input: stream }).on("line", (line) => {
    out.write(`[${name}] ${line}\n`);
    onLine(line);
  });
}

function start(name, args, { readyLine } = {}) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    // People read `npm start`, in a terminal or in a file, so the services print human-readable lines
    // (SWITCHBOARD_TTY=1; their bins default to JSON lines when not on a terminal). The children write to pipes (to be
    // prefixed here) and cannot see the terminal themselves: FORCE_COLOR colours their lines when ours go to one.
    env: {
      ...process.env,
      SWITCHBOARD_TTY: "1",
      ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}),
    },
  });
  let onReady = () => {};
  const ready = new Promise((resolve) => {
    onReady = resolve;
  });
  prefixLines(child.stdout, name, process.stdout, (line) => {
    if (readyLine && line.includes(readyLine)) onReady();
  });
  prefixLines(child.stderr, name, process.stderr);
  running.set(name, child);
  child.on("exit", (code, signal) => {
    running.delete(name);
    if (!stopping) {
      console.error(`[${name}] exited (${signal ?? code}); stopping the others`);
      stop(code || 1);
    } else if (running.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
  return ready;
}

function isListening(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function startOllamaSimulator() {
  if (await isListening(OLLAMA_PORT)) {
    console.log(`[${SIMULATOR}] not started: something already listens on port ${OLLAMA_PORT} (a real Ollama?)`);
    return;
  }
  console.log(
    `[${SIMULATOR}] SIMULATOR, not a real Ollama: the testkit's fake Ollama on http://127.0.0.1:${OLLAMA_PORT}, ` +
      'serving llama3.2:3b, llama3.1:8b and nomic-embed-text with canned answers ("echo: <your message>")',
  );
  const cli = join("packages", "testkit", "src", "llm", "cli.ts");
  const args = ["--import", "tsx", cli, "--kind", "ollama", "--port", String(OLLAMA_PORT), ...SIMULATED_MODELS];
  // The gateway probes its backends once before it listens: the simulator has to answer by then.
  const timeout = setTimeout(() => {
    console.error(`[${SIMULATOR}] did not start within 30 s; stopping`);
    stop(1);
  }, 30_000);
  await start(SIMULATOR, args, { readyLine: "listening on" });
  clearTimeout(timeout);
}

function stop(exitCode) {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  if (running.size === 0) process.exit(exitCode);
  for (const child of running.values()) child.kill("SIGTERM");
  // A process that ignores SIGTERM for 10 s is killed, so Ctrl-C always returns the terminal.
  setTimeout(() => {
    for (const child of running.values()) child.kill("SIGKILL");
  }, 10_000).unref();
}

process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

await startOllamaSimulator();
if (!stopping) for (const service of services) start(service.name, service.args);
