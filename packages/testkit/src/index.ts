export { builtinsLoadedAtListening } from "./builtins-at-listening.ts";
export * from "./chat/index.ts";
export { corruptFile } from "./corrupt-file.ts";
export {
  type ChatRequest,
  embeddingOf,
  type FakeLlmOptions,
  type FakeLlmServer,
  type FakeModel,
  type Fault,
  type RecordedRequest,
  startFakeAnthropic,
  startFakeGoogle,
  startFakeOllama,
  startFakeOpenAI,
  type ToolCall,
} from "./llm/index.ts";
export { freePort, isPortOpen, waitForPort } from "./ports.ts";
export { ManagedProcess, type Readiness, type StartOptions, startProcess, type Teardown, tsNode } from "./process.ts";
export { type ExitedRun, type RunToExitOptions, runToExit } from "./run-to-exit.ts";
export { type RedisServer, startRedis } from "./store/redis.ts";
export { suiteTeardown } from "./teardown.ts";
export { waitUntil, withTimeout } from "./wait.ts";
