// The discord account's connection life against the Discord simulator: a 429 answered by waiting and delivering in
// order, a dropped gateway connection (messages posted meanwhile held and delivered in order after the reconnect),
// and start-up errors that name the account and say what to fix (bad token, privileged intents off, unknown server).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startDiscordSimulator, waitUntil } from "@switchboard/testkit";
import { openStream, post, startBridge, suiteTeardown } from "./helpers.ts";

function config(apiUrl: string, token: string, server: string, extra = ""): string {
  return `
[discord.test]
Token = "${token}"
Server = "${server}"
ApiURL = "${apiUrl}"
RemoteNickFormat = "<{NICK}> "
${extra}

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "discord.test"
  channel = "general"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

const contents = (simulator: { sent: { items: { kind: string; message: { content: string } }[] } }) =>
  simulator.sent.items.filter((a) => a.kind === "create").map((a) => a.message.content);

describe("discord account connection life", () => {
  const teardown = suiteTeardown();

  it("waits out a 429 (Retry-After) and delivers everything in order", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const bridge = await startBridge(config(simulator.apiUrl, simulator.token, simulator.guild.name), teardown);
    const api = bridge.url("api.local");
    simulator.rateLimitNext(1, {
      retryAfter: 0.1,
      matches: (method, path) => method === "POST" && /messages$/.test(path),
    });
    for (const n of [1, 2, 3]) await post(api, { text: `burst ${n}`, username: "bob", gateway: "g" });
    await simulator.sent.waitFor((a) => a.message.content === "<bob> burst 3", { what: "the third message" });
    assert.deepEqual(contents(simulator), ["<bob> burst 1", "<bob> burst 2", "<bob> burst 3"]);
    assert.equal(simulator.requests.filter((r) => r.endsWith("-> 429")).length, 1);
  });

  it("holds messages while the gateway connection is down and delivers them in order after the reconnect", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const alice = simulator.addUser("alice");
    const bridge = await startBridge(
      config(simulator.apiUrl, simulator.token, simulator.guild.name, "ReconnectDelay = 200"),
      teardown,
    );
    const api = bridge.url("api.local");
    const stream = await openStream(api);
    teardown.after(() => stream.close());
    const account = bridge.bridge.accounts.get("discord.test");
    assert.ok(account);

    simulator.acceptGateway(false);
    assert.equal(simulator.dropConnections({ invalidateSessions: true }), 1);
    await waitUntil(() => !account.supervisor.isUp, { timeoutMs: 10_000, what: "the bridge noticing the drop" });
    for (const n of [1, 2, 3]) {
      const answer = await post(api, { text: `during ${n}`, username: "bob", gateway: "g" });
      assert.equal(answer.status, 200);
    }
    assert.equal(account.queued, 3, "the messages are held while the account is down");
    assert.deepEqual(contents(simulator), []);
    simulator.acceptGateway(true);
    await simulator.sent.waitFor((a) => a.message.content === "<bob> during 3", { timeoutMs: 15_000 });
    assert.deepEqual(contents(simulator), ["<bob> during 1", "<bob> during 2", "<bob> during 3"]);

    // And Discord -> api works on the new connection.
    alice.say("general", "back again");
    await waitUntil(() => stream.items.some((m) => m.text === "back again"), { what: "relay after reconnect" });
    assert.deepEqual(simulator.unhandled, []);
  });

  it("stops start-up with an error naming the account when the token is wrong", async () => {
    const simulator = await startDiscordSimulator(teardown);
    await assert.rejects(
      startBridge(config(simulator.apiUrl, "wrong-token", simulator.guild.name), teardown),
      (error: Error) => {
        assert.match(error.message, /discord\.test/);
        assert.match(error.message, /Token/);
        assert.doesNotMatch(error.message, /wrong-token/);
        return true;
      },
    );
    // One attempt: no retry storm.
    assert.equal(simulator.requests.filter((r) => r.includes("/gateway/bot")).length, 1);
  });

  it("says to enable the privileged intents when the application may not use them", async () => {
    const simulator = await startDiscordSimulator(teardown, { privilegedIntents: false });
    await assert.rejects(
      startBridge(config(simulator.apiUrl, simulator.token, simulator.guild.name), teardown),
      /discord\.test.*Message Content Intent/s,
    );
  });

  it("names the servers the bot is on when Server matches none", async () => {
    const simulator = await startDiscordSimulator(teardown);
    await assert.rejects(startBridge(config(simulator.apiUrl, simulator.token, "Nope"), teardown), (error: Error) => {
      assert.match(error.message, /discord\.test/);
      assert.match(error.message, new RegExp(`"${simulator.guild.name}" \\(ID:${simulator.guild.id}\\)`));
      return true;
    });
  });
});
