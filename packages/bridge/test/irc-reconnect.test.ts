// The irc account's connection life against a real ngIRCd: the server restarted mid-test (messages posted during the
// outage arrive after the reconnect, in order), a taken nick (registers as Nick_, takes Nick back when it is free),
// and a refused server password (a start-up error naming the account, not endless retries).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connectIrcUser, startNgircd, waitUntil } from "@switchboard/testkit";
import { IrcConnection } from "../src/accounts/irc/irc-connection.ts";
import { realConnection } from "../src/accounts/lazy-connection.ts";
import { post, startBridge, suiteTeardown } from "./helpers.ts";

function config(port: number, channel: string, extra = ""): string {
  return `
[irc.net]
Server = "127.0.0.1:${port}"
Nick = "bridgebot"
RemoteNickFormat = "<{NICK}> "
MessageDelay = 10
${extra}

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "irc.net"
  channel = "${channel}"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

describe("irc account connection life", () => {
  const teardown = suiteTeardown();

  it("holds messages posted while the server restarts and delivers them in order after the reconnect", async () => {
    const server = await startNgircd(teardown);
    const alice = await connectIrcUser(teardown, { ...server, nick: "alice", channels: ["#outage"] });
    // ReconnectDelay: the bridge waits 1-2 s (jitter) before reconnecting, long enough for alice to be back first.
    const bridge = await startBridge(config(server.port, "#outage", "ReconnectDelay = 2000"), teardown);
    const api = bridge.url("api.local");
    await post(api, { text: "before", username: "bob", gateway: "g" });
    await alice.waitForMessage("#outage", "<bob> before");

    const account = bridge.bridge.accounts.get("irc.net");
    assert.ok(account);
    await server.restart();
    await waitUntil(() => !account.supervisor.isUp, { timeoutMs: 10_000, what: "the bridge noticing the outage" });
    for (const n of [1, 2, 3, 4, 5]) {
      const answer = await post(api, { text: `during ${n}`, username: "bob", gateway: "g" });
      assert.equal(answer.status, 200);
    }
    assert.equal(account.queued, 5, "the messages are held while the account is down");
    await alice.reconnect();
    await alice.waitForMessage("#outage", "<bob> during 5", 15_000);
    const after = alice.events.items.flatMap((e) =>
      e.type === "privmsg" && e.text.includes("during") ? [e.text] : [],
    );
    assert.deepEqual(
      after,
      [1, 2, 3, 4, 5].map((n) => `<bob> during ${n}`),
    );
    // And IRC -> api works on the new connection.
    alice.say("#outage", "back again");
    await waitUntil(async () => (await fetchTexts(api)).includes("back again"), { timeoutMs: 10_000, what: "relay" });
  });

  it("registers with Nick_ when Nick is taken, and takes Nick back when its holder leaves", async () => {
    const server = await startNgircd(teardown);
    const holder = await connectIrcUser(teardown, { ...server, nick: "bridgebot", channels: ["#nick"] });
    const watcher = await connectIrcUser(teardown, { ...server, nick: "watcher", channels: ["#nick"] });
    const bridge = await startBridge(config(server.port, "#nick"), teardown);
    const connection = realConnection(bridge.bridge.accounts.get("irc.net")?.connection);
    assert.ok(connection instanceof IrcConnection);
    assert.equal(connection.nick, "bridgebot_");
    await post(bridge.url("api.local"), { text: "still relaying", username: "bob", gateway: "g" });
    const line = await watcher.waitForMessage("#nick", "still relaying");
    assert.equal(line.nick, "bridgebot_");

    await holder.quit("freeing the nick");
    await watcher.waitFor((e) => e.type === "nick" && e.nick === "bridgebot_" && e.newNick === "bridgebot");
    await waitUntil(() => connection.nick === "bridgebot", { timeoutMs: 5_000, what: "the bridge's own nick state" });
  });

  it("fails start-up with an error naming the account when the server refuses the password", async () => {
    const server = await startNgircd(teardown, { globalConfig: ["Password = right"] });
    await assert.rejects(
      startBridge(config(server.port, "#pw", 'Password = "wrong"'), teardown),
      /\[irc\.net\].*password/i,
    );
  });
});

async function fetchTexts(api: string): Promise<string[]> {
  const response = await fetch(`${api}/api/messages`);
  const messages = (await response.json()) as { text: string }[];
  return messages.map((m) => m.text);
}
