// Adding a protocol is one descriptor: this test defines an in-memory "loopback" protocol here, registers it through
// the registry API alone (no source edited), and bridges messages through it and an api account over real HTTP.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { defineProtocol, ProtocolRegistry } from "../src/config/descriptor.ts";
import { key } from "../src/config/key-spec.ts";
import { configFromText } from "../src/config/load.ts";
import type { Delivery } from "../src/core/account.ts";
import type { Connection, ConnectionContext } from "../src/core/connection.ts";
import { emptyMessage } from "../src/message.ts";
import { post, readMessages, startBridge, suiteTeardown } from "./helpers.ts";

/** Answers every message it is sent with "<Prefix><text>" from the user "echo", on the same channel. */
class LoopbackConnection implements Connection {
  readonly joined: string[] = [];
  readonly delivered: Delivery[] = [];
  #connected = false;
  #count = 0;

  constructor(
    readonly context: ConnectionContext,
    readonly prefix: string,
  ) {}

  async connect(): Promise<void> {
    this.#connected = true;
  }

  async join(request: { channel: string }): Promise<void> {
    this.joined.push(request.channel);
  }

  send(delivery: Delivery): string {
    if (!this.#connected) throw new Error("not connected");
    this.delivered.push(delivery);
    const reply = emptyMessage({ text: `${this.prefix}${delivery.message.text}`, channel: delivery.channel });
    reply.username = "echo";
    // Replies arrive later, as from a real network.
    setImmediate(() => this.context.receive(reply));
    return `loop-${++this.#count}`;
  }

  async disconnect(): Promise<void> {
    this.#connected = false;
  }
}

const loopbackProtocol = defineProtocol({
  name: "loopback",
  keys: {
    Prefix: key.string({ required: true, example: '"echo: "' }),
    Volume: key.integer({ default: 3, min: 0, max: 10 }),
  },
  validate: (settings) => (settings.Prefix === "" ? ["Prefix must not be empty"] : []),
  create: (account, context) => new LoopbackConnection(context, account.settings.Prefix),
});

const CONFIG = `
[api.a]
BindAddress = "127.0.0.1:0"
Buffer = 100

[loopback.one]
Prefix = "echo: "

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "api.a"
  [[gateway.inout]]
  account = "loopback.one"
  channel = "room"
`;

describe("protocol registry", () => {
  const teardown = suiteTeardown();

  it("bridges a message through a protocol registered by the test alone", async () => {
    const run = await startBridge(CONFIG, teardown, { protocols: PROTOCOLS.with(loopbackProtocol) });
    const loopback = run.bridge.accounts.get("loopback.one")?.connection;
    assert.ok(loopback instanceof LoopbackConnection);
    assert.deepEqual(loopback.joined, ["room"], "the core joined its channel");

    const answer = await post(run.url("api.a"), { text: "ping", username: "alice", gateway: "g" });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["x-switchboard-deliveries"], "1");
    assert.equal(loopback.delivered[0]?.message.text, "ping");
    assert.equal(loopback.delivered[0]?.channel, "room");

    let received: Awaited<ReturnType<typeof readMessages>> = [];
    await waitUntil(
      async () => {
        received = [...received, ...(await readMessages(run.url("api.a")))];
        return received.length > 0;
      },
      { timeoutMs: 5_000, intervalMs: 10, what: "the echo on api.a" },
    );
    assert.equal(received[0]?.text, "echo: ping");
    assert.equal(received[0]?.username, "echo");
    assert.equal(received[0]?.account, "loopback.one");
    assert.equal(received[0]?.protocol, "loopback");
    assert.equal(received[0]?.channel, "room");
  });

  it("reads the protocol's keys (typed, defaults), runs its validation, and names its missing required keys", () => {
    const protocols = PROTOCOLS.with(loopbackProtocol);
    const config = configFromText(CONFIG, "t.toml", { protocols, env: { MATTERBRIDGE_LOOPBACK_ONE_VOLUME: "7" } });
    const settings = config.accounts.get("loopback.one")?.settings;
    assert.equal(settings?.["Prefix"], "echo: ");
    assert.equal(settings?.["Volume"], 7, "environment overrides reach a registered protocol's keys");
    assert.equal(settings?.RemoteNickFormat, "{NICK}", "core keys come with it");
    const load = (text: string) => configFromText(text, "t.toml", { protocols, env: {} });
    assert.throws(
      () => load(CONFIG.replace('Prefix = "echo: "', 'Prefix = ""')),
      /\[loopback\.one\] Prefix must not be empty/,
    );
    assert.throws(
      () => load(CONFIG.replace('Prefix = "echo: "', 'Prefx = "echo: "')),
      /\[loopback\.one\] has no Prefix; did you mean Prefx → Prefix\? \(e\.g\. Prefix = "echo: "\)/,
    );
    assert.throws(
      () => load(CONFIG.replace('Prefix = "echo: "', "Prefix = 1\nVolume = 11")),
      /Prefix must be a string/,
    );
    assert.throws(
      () => load(CONFIG.replace('Prefix = "echo: "', 'Prefix = "x"\nVolume = 11')),
      /\[loopback\.one\]: Volume must be between 0 and 10 \(got 11\)/,
    );
    assert.throws(
      () => configFromText(CONFIG, "t.toml", { protocols: PROTOCOLS, env: {} }),
      /protocol "loopback" is not a known protocol; supported protocols: api/,
    );
  });

  it("refuses a registry with two descriptors of one name", () => {
    assert.throws(() => new ProtocolRegistry([loopbackProtocol, loopbackProtocol]), /registered twice/);
    // Whatever protocols are registered, with() adds one and leaves the original registry as it was.
    const registered = PROTOCOLS.names;
    assert.ok(registered.includes("api"));
    assert.deepEqual(PROTOCOLS.with(loopbackProtocol).names, [...registered, "loopback"]);
    assert.deepEqual(PROTOCOLS.names, registered, "with() leaves the original registry as it was");
  });
});
