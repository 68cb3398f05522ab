// The fixture shared by the api suites: four api accounts on one gateway, one with a tiny ring and body limit, one
// behind a token.
import { before } from "node:test";
import { type RunningBridge, readMessages, startBridge, suiteTeardown, type Teardown } from "./helpers.ts";

export const TOKEN = "s3cret-Token_value";

const FOUR_ACCOUNTS = `
[api.a]
BindAddress = "127.0.0.1:0"
Buffer = 100

[api.b]
BindAddress = "127.0.0.1:0"
Buffer = 100

[api.small]
BindAddress = "127.0.0.1:0"
Buffer = 3
BodyLimit = 1024

[api.locked]
BindAddress = "127.0.0.1:0"
Token = "${TOKEN}"

[[gateway]]
name = "gw"
enable = true
  [[gateway.inout]]
  account = "api.a"
  [[gateway.inout]]
  account = "api.b"
  [[gateway.inout]]
  account = "api.small"
  [[gateway.inout]]
  account = "api.locked"
`;

/** The four-account bridge of one suite: started before its tests, stopped after them. */
export interface FourAccountBridge {
  /** Base URL of account `api.<name>`. */
  url(name: string): string;
  /** Empties every account's ring, so a test starts from nothing buffered. */
  drain(): Promise<void>;
  /** Every log line the bridge wrote (it runs with debug on). */
  readonly logs: string[];
  /** Cleanups run when the suite ends (streams and sockets a test opened). */
  teardown: Teardown;
}

/** Call at the top of a describe(): registers the bridge's start and stop with that suite. */
export function useFourAccounts(): FourAccountBridge {
  let run: RunningBridge | undefined;
  const teardown = suiteTeardown();
  before(async () => {
    run = await startBridge(FOUR_ACCOUNTS, teardown, { debug: true });
  });
  const started = () => {
    if (!run) throw new Error("the bridge is not started yet (use it inside a test)");
    return run;
  };
  return {
    url: (name) => started().url(`api.${name}`),
    drain: async () => {
      const bridge = started();
      for (const name of ["a", "b", "small"]) await readMessages(bridge.url(`api.${name}`));
      await readMessages(bridge.url("api.locked"), { authorization: `Bearer ${TOKEN}` });
    },
    get logs() {
      return started().logs;
    },
    teardown,
  };
}
