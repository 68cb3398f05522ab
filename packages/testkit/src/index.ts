export { freePort, isPortOpen, waitForPort } from "./ports.ts";
export { ManagedProcess, type Readiness, type StartOptions, startProcess, type Teardown, tsNode } from "./process.ts";
export { waitUntil, withTimeout } from "./wait.ts";
