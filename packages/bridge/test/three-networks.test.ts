// One gateway joining a real IRC channel (ngIRCd), a real XMPP room (Prosody) and an api account: what anyone says
// on one reaches the other two exactly once, formatted for each; and when either server restarts, what the others
// said during the outage arrives there after the reconnect, in order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  connectIrcUser,
  type IrcUser,
  startNgircd,
  startProsody,
  waitUntil,
  type XmppUser,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { openStream, post, type RunningBridge, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";
import { human, USERS } from "./xmpp-fixtures.ts";

const CHANNEL = "#lobby";

function config(irc: { port: number }, xmpp: { port: number; domain: string; mucDomain: string }): string {
  // ReconnectDelay: the bridge waits 1-2 s (jitter) after a drop, long enough for the test's humans to be back first
  // (IRC keeps no history, so a human not yet in the channel would miss what the bridge delivers).
  return `
[general]
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
ReconnectDelay = 2000

[irc.net]
Server = "127.0.0.1:${irc.port}"
Nick = "bridgebot"
MessageDelay = 0

[xmpp.chat]
Server = "127.0.0.1:${xmpp.port}"
Jid = "bridge@${xmpp.domain}"
Password = "bridgepw"
Muc = "${xmpp.mucDomain}"
Nick = "Bridge"
NoTLS = true

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "[{PROTOCOL}] {NICK}"

[[gateway]]
name = "lobby"
enable = true
  [[gateway.inout]]
  account = "irc.net"
  channel = "${CHANNEL}"
  [[gateway.inout]]
  account = "xmpp.chat"
  channel = "lobby"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

const ircTexts = (ivan: IrcUser) => ivan.events.items.flatMap((e) => (e.type === "privmsg" ? [e.text] : []));
const xmppTexts = (alice: XmppUser, room: string) =>
  alice.messages.items.filter((m) => m.room === room && m.nick !== "Alice").map((m) => m.text);
// The stream opens with a greeting (an empty message); what follows was relayed.
const apiLines = (stream: StreamClient): Message[] => stream.items.slice(1);

async function waitForQueued(bridge: RunningBridge, account: string, count: number): Promise<void> {
  const supervised = bridge.bridge.accounts.get(account);
  assert.ok(supervised, account);
  await waitUntil(() => supervised.queued >= count, {
    timeoutMs: 10_000,
    what: `${count} message(s) held for ${account}`,
  });
}

describe("one gateway across IRC, XMPP and the api", () => {
  const teardown = suiteTeardown();

  it("relays each network to the other two exactly once, and holds messages across each server's restart", async () => {
    const ircServer = await startNgircd(teardown);
    const xmppServer = await startProsody(teardown, { users: USERS, mucHistory: 0 });
    const room = `lobby@${xmppServer.mucDomain}`;
    const ivan = await connectIrcUser(teardown, { ...ircServer, nick: "ivan", channels: [CHANNEL] });
    const alice = await human(teardown, xmppServer, "alice");
    await alice.joinRoom(room, "Alice");
    const bridge = await startBridge(config(ircServer, xmppServer), teardown);
    const api = bridge.url("api.local");
    const stream = await openStream(api);
    teardown.after(() => stream.close());
    const fromApi = (text: string) => apiLines(stream).find((m) => m.text === text);

    // IRC -> XMPP and api.
    ivan.say(CHANNEL, "hello from irc");
    await alice.waitForMessage(room, "[irc] <ivan> hello from irc");
    const irc = await waitUntil(() => fromApi("hello from irc"), { what: "the IRC line on the api" });
    assert.equal(irc.username, "[irc] ivan");
    assert.equal(irc.protocol, "irc");

    // XMPP -> IRC and api.
    await alice.say(room, "hello from xmpp");
    await ivan.waitForMessage(CHANNEL, "[xmpp] <Alice> hello from xmpp");
    const xmpp = await waitUntil(() => fromApi("hello from xmpp"), { what: "the XMPP message on the api" });
    assert.equal(xmpp.username, "[xmpp] Alice");

    // api -> IRC and XMPP.
    assert.equal((await post(api, { text: "hello from api", username: "carol", gateway: "lobby" })).status, 200);
    await ivan.waitForMessage(CHANNEL, "[api] <carol> hello from api");
    await alice.waitForMessage(room, "[api] <carol> hello from api");

    // A /me action from IRC is an action everywhere.
    ivan.action(CHANNEL, "waves");
    const action = await waitUntil(() => fromApi("waves"), { what: "the action on the api" });
    assert.equal(action.event, "user_action");
    await alice.waitForMessage(room, /waves/);

    // IRC restarts: what the api and XMPP say meanwhile is held for IRC and arrives in order.
    await ircServer.restart();
    await post(api, { text: "during irc outage 1", username: "carol", gateway: "lobby" });
    await waitForQueued(bridge, "irc.net", 1);
    await alice.say(room, "during irc outage 2");
    await waitForQueued(bridge, "irc.net", 2);
    await post(api, { text: "during irc outage 3", username: "carol", gateway: "lobby" });
    await ivan.reconnect();
    await ivan.waitForMessage(CHANNEL, "[api] <carol> during irc outage 3", 20_000);
    assert.deepEqual(
      ircTexts(ivan).filter((text) => text.includes("during irc outage")),
      ["[api] <carol> during irc outage 1", "[xmpp] <Alice> during irc outage 2", "[api] <carol> during irc outage 3"],
    );

    // XMPP restarts: what the api and IRC say meanwhile is held for XMPP and arrives in order.
    const restarting = xmppServer.restart();
    await waitUntil(() => bridge.logs.some((line) => line.includes("xmpp.chat disconnected")), {
      timeoutMs: 10_000,
      what: "the bridge noticing the XMPP restart",
    });
    await post(api, { text: "during xmpp outage 1", username: "carol", gateway: "lobby" });
    await waitForQueued(bridge, "xmpp.chat", 1);
    ivan.say(CHANNEL, "during xmpp outage 2");
    await waitForQueued(bridge, "xmpp.chat", 2);
    await restarting;
    await alice.reconnect();
    await alice.waitForMessage(room, "[irc] <ivan> during xmpp outage 2", 20_000);
    assert.deepEqual(
      xmppTexts(alice, room).filter((text) => text.includes("during xmpp outage")),
      ["[api] <carol> during xmpp outage 1", "[irc] <ivan> during xmpp outage 2"],
    );

    // Exactly once everywhere: no copy was duplicated by a retry or echoed back to where it came from.
    const count = (texts: string[], part: string) => texts.filter((text) => text.includes(part)).length;
    for (const part of ["hello from xmpp", "hello from api", "during irc outage 1", "during irc outage 2"]) {
      assert.equal(count(ircTexts(ivan), part), 1, `IRC got "${part}" once`);
    }
    for (const part of ["hello from irc", "hello from api", "during xmpp outage 1", "during xmpp outage 2"]) {
      assert.equal(count(xmppTexts(alice, room), part), 1, `XMPP got "${part}" once`);
    }
    const apiTexts = apiLines(stream).map((m) => m.text);
    for (const part of ["hello from irc", "hello from xmpp", "during irc outage 2", "during xmpp outage 2"]) {
      assert.equal(count(apiTexts, part), 1, `the api got "${part}" once`);
    }
    assert.equal(count(apiTexts, "hello from api"), 0, "the api's own post is not echoed back to it");
  });
});
