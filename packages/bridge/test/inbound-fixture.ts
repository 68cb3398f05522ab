// What the inbound-fault tests share: the real bin with one platform account (against its simulator) and an api
// account on one gateway, a stream on the api account to see what the platform account relays, and the checks every
// such test makes: the process is still running, and what was relayed.
import assert from "node:assert/strict";
import { type Teardown, waitUntil } from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { openStream, type StreamClient } from "./helpers.ts";

export interface InboundRun {
  bridge: BridgeProcess;
  stream: StreamClient;
  /** Messages the platform account relayed to the api account (the greeting left out). */
  relayed(): Message[];
  waitForRelayed(matches: (message: Message) => boolean, what: string): Promise<Message>;
  /** The bin is still running, and it has not logged a crash. */
  assertAlive(): void;
}

/**
 * Starts the bin with `account` (a TOML table such as `[telegram.tg]\nToken = ...`) bridged on `channel` to an api
 * account. `extra` adds accounts and gateway entries after the generated ones.
 */
export async function startInboundRun(
  teardown: Teardown,
  options: { account: string; accountId: string; channel: string; extra?: string },
): Promise<InboundRun> {
  const toml = `${options.account}
ReconnectDelay = 50
ReconnectMaxDelay = 300

[api.local]
BindAddress = "127.0.0.1:0"
Buffer = 100

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "${options.accountId}"
  channel = ${JSON.stringify(options.channel)}
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
${options.extra ?? ""}`;
  const bridge = await startBridgeProcess(toml, teardown);
  const stream = await openStream(bridge.url("api.local"));
  teardown.after(() => stream.close());
  const relayed = () => stream.items.filter((message) => message.event !== "api_connected");
  return {
    bridge,
    stream,
    relayed,
    waitForRelayed: (matches, what) =>
      waitUntil(() => relayed().find(matches), { timeoutMs: 10_000, what }).catch((error: Error) => {
        throw new Error(`${error.message}\n--- the bridge's output ---\n${bridge.process.tail()}`);
      }),
    assertAlive() {
      assert.ok(bridge.process.running, `the bridge exited:\n${bridge.process.tail()}`);
      assert.doesNotMatch(bridge.process.output, /uncaught|unhandled/i, "no crash was logged");
    },
  };
}

/** Log lines of the bin saying it skipped an event it could not read, once the first has arrived. */
export function skippedLines(run: InboundRun): Promise<string[]> {
  return run.bridge.process.waitForLines("the bridge cannot read", 10_000);
}

/**
 * After a burst of events the bin cannot read and a message after them (`relayed` ends with its text): the message
 * came, the bin is alive, exactly `relayed` was relayed, and one rate-limited line named the account and `what`.
 */
export async function assertBurstSkipped(
  run: InboundRun,
  expected: { relayed: readonly string[]; account: RegExp; what?: RegExp },
): Promise<void> {
  const last = expected.relayed.at(-1);
  await run.waitForRelayed((m) => m.text === last, "the message after the malformed ones");
  run.assertAlive();
  assert.deepEqual(
    run.relayed().map((m) => m.text),
    expected.relayed,
  );
  const lines = await skippedLines(run);
  assert.equal(lines.length, 1, `one rate-limited line for the burst:\n${lines.join("\n")}`);
  assert.match(lines[0] ?? "", expected.account);
  if (expected.what !== undefined) assert.match(lines[0] ?? "", expected.what);
}
