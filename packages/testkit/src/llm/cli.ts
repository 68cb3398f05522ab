// Runs one fake LLM server as a process:
//   node --import tsx packages/testkit/src/llm/cli.ts --kind openai|ollama|anthropic|google [--port N] [--crlf] [--model id]...
//     [--embedding-model id]... [--chunks N] [--chunk-interval-ms MS] [--api-key KEY]
// Prints "listening on http://127.0.0.1:PORT"; stops on SIGTERM and SIGINT.
import { parseArgs } from "node:util";
import { startFakeAnthropic, startFakeGoogle, startFakeOllama, startFakeOpenAI } from "./index.ts";
import type { FakeLlmOptions, FakeModel } from "./types.ts";

const usage =
  "usage: cli.ts --kind openai|ollama|anthropic|google [--port N] [--crlf] [--model id]... [--embedding-model id]... " +
  "[--chunks N] [--chunk-interval-ms MS] [--api-key KEY]";

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) fail(`${flag} must be a non-negative integer, got "${value}"`);
  return number;
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      kind: { type: "string" },
      port: { type: "string" },
      crlf: { type: "boolean", default: false },
      model: { type: "string", multiple: true },
      "embedding-model": { type: "string", multiple: true },
      chunks: { type: "string" },
      "chunk-interval-ms": { type: "string" },
      "api-key": { type: "string" },
    },
    strict: true,
  });
}
try {
  parsed = parse();
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const { values } = parsed;
const starters = new Map([
  ["openai", startFakeOpenAI],
  ["ollama", startFakeOllama],
  ["anthropic", startFakeAnthropic],
  ["google", startFakeGoogle],
]);
const startServer = starters.get(values.kind ?? "");
if (!startServer) fail(`--kind must be one of ${[...starters.keys()].join(", ")}`);

const models: FakeModel[] = [
  ...(values.model ?? []).map((id): FakeModel => ({ id })),
  ...(values["embedding-model"] ?? []).map((id): FakeModel => ({ id, capabilities: ["embedding"] })),
];
const options: FakeLlmOptions = {
  port: integer(values.port, "--port"),
  models: models.length > 0 ? models : undefined,
  lineEnding: values.crlf ? "\r\n" : "\n",
  chunks: integer(values.chunks, "--chunks"),
  chunkIntervalMs: integer(values["chunk-interval-ms"], "--chunk-interval-ms"),
  apiKey: values["api-key"],
};
const server = await startServer(options);
console.log(`fake ${values.kind} listening on ${server.url}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.close();
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
