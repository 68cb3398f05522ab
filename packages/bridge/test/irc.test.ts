// The irc account against a real ngIRCd, with irc-framework clients as the humans and an api account on the same
// gateways: messages both ways with RemoteNickFormat, /me actions, long lines split or clipped, joins and parts,
// notices, and the bridge's own lines never coming back.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { connectIrcUser, type IrcUser, type NgircdServer, startNgircd } from "@switchboard/testkit";
import { utf8Length } from "../src/accounts/irc/split.ts";
import type { Message } from "../src/message.ts";
import { openStream, post, type RunningBridge, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

describe("irc account with ngIRCd", () => {
  const teardown = suiteTeardown();
  let server: NgircdServer;
  let bridge: RunningBridge;
  let api: string;
  let stream: StreamClient;
  let alice: IrcUser;
  let carol: IrcUser;

  /** The first message on the api stream (after `from`) that matches. */
  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.take(1, 0).then(async () => {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const found = stream.items.slice(from).find(matches);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no matching api message; got ${JSON.stringify(stream.items.slice(-5))}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });

  before(async () => {
    server = await startNgircd(teardown);
    alice = await connectIrcUser(teardown, { ...server, nick: "alice", channels: ["#main", "#clip"] });
    carol = await connectIrcUser(teardown, { ...server, nick: "carol", channels: ["#main"] });
    bridge = await startBridge(
      `
[irc.main]
Server = "127.0.0.1:${server.port}"
Nick = "bridgebot"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
MessageDelay = 20
MessageSplit = true
MessageLength = 120

[irc.clip]
Server = "127.0.0.1:${server.port}"
Nick = "clipbot"
RemoteNickFormat = "<{NICK}> "
MessageDelay = 0
MessageLength = 100

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}@{PROTOCOL}"
ShowJoinPart = true
ShowTopicChange = true

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "irc.main"
  channel = "#Main"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"

[[gateway]]
name = "clip"
enable = true
  [[gateway.inout]]
  account = "irc.clip"
  channel = "#clip"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`,
      teardown,
    );
    api = bridge.url("api.local");
    stream = await openStream(api);
    teardown.after(() => stream.close());
  });

  it("relays an IRC message to the api with the api's RemoteNickFormat and the configured channel", async () => {
    alice.say("#main", "hello from \x02IRC\x02");
    const got = await apiMessage((m) => m.text === "hello from IRC" && m.gateway === "main");
    assert.equal(got.username, "alice@irc");
    assert.equal(got.channel, "#Main");
    assert.equal(got.account, "irc.main");
    assert.equal(got.protocol, "irc");
    assert.equal(got.event, "");
    assert.match(got.userid, /@/);
  });

  it("relays an api message to IRC with IRC's RemoteNickFormat", async () => {
    const answer = await post(api, { text: "hello from the api", username: "bob", gateway: "main" });
    assert.equal(answer.status, 200);
    const line = await alice.waitForMessage("#main", "hello from the api");
    assert.equal(line.text, "[api] <bob> hello from the api");
    assert.equal(line.nick, "bridgebot");
  });

  it("answers Matterbridge's !users with the channel's nicks, from the bridge's own nick", async () => {
    const from = stream.items.length;
    const answer = await post(api, { text: "!users", username: "bob", gateway: "main" });
    assert.equal(answer.status, 200);
    await alice.waitForMessage("#main", "!users");
    const users = await apiMessage((m) => m.text.endsWith("currently on IRC"), from);
    assert.equal(users.text, "alice, bridgebot, carol currently on IRC");
    assert.equal(users.username, "bridgebot@irc");
    assert.equal(users.gateway, "main");
    assert.equal(users.channel, "#Main");
  });

  it("relays /me actions both ways", async () => {
    alice.action("#main", "waves");
    const got = await apiMessage((m) => m.text === "waves" && m.event === "user_action");
    assert.equal(got.username, "alice@irc");
    await post(api, { text: "waves back", username: "bob", gateway: "main", event: "user_action" });
    const action = await alice.waitFor((e) => e.type === "action" && e.text.includes("waves back"));
    assert.equal(action.type === "action" && action.text, "[api] <bob> waves back");
  });

  it("sends one IRC line per message line, and splits a long line at MessageLength on UTF-8 boundaries", async () => {
    const long = `split: ${"wörd ".repeat(60)}end`;
    await post(api, { text: `first line\n\nsecond line\n${long}`, username: "bob", gateway: "main" });
    await alice.waitForMessage("#main", /end$/);
    const lines = alice.events.items.flatMap((e) =>
      e.type === "privmsg" && e.target === "#main" && e.nick === "bridgebot" ? [e.text] : [],
    );
    const start = lines.indexOf("[api] <bob> first line");
    assert.ok(start >= 0, `first line missing from ${JSON.stringify(lines)}`);
    const sent = lines.slice(start);
    assert.equal(sent[1], "[api] <bob> second line");
    const parts = sent.slice(2);
    assert.ok(parts.length >= 3, `expected the long line in several parts, got ${parts.length}`);
    for (const part of parts) {
      assert.ok(part.startsWith("[api] <bob> "), part);
      assert.ok(utf8Length(part) <= 120, `${utf8Length(part)} bytes: ${part}`);
    }
    const rejoined = parts.map((part) => part.slice("[api] <bob> ".length)).join(" ");
    assert.equal(rejoined, long.trimEnd());
  });

  it("clips a long line with MessageClipped when MessageSplit is false", async () => {
    await post(api, { text: `clip ${"x".repeat(300)}`, username: "bob", gateway: "clip" });
    const line = await alice.waitForMessage("#clip", "<bob> clip");
    assert.ok(line.text.endsWith(" <clipped message>"), line.text);
    assert.ok(utf8Length(line.text) <= 100);
  });

  it("relays joins, parts and nick changes as join_leave to a destination with ShowJoinPart", async () => {
    const dave = await connectIrcUser(teardown, { ...server, nick: "dave", channels: ["#main"] });
    const joined = await apiMessage((m) => m.event === "join_leave" && m.text === "dave joins");
    assert.equal(joined.username, "system@irc");
    await dave.changeNick("dave2");
    await apiMessage((m) => m.event === "join_leave" && m.text === "dave is now known as dave2");
    await dave.part("#main", "bye");
    await apiMessage((m) => m.event === "join_leave" && m.text === "dave2 parts");
    await dave.join("#main");
    await dave.quit("gone");
    await apiMessage((m) => m.event === "join_leave" && m.text === "dave2 quits");
  });

  it("relays topic changes to a destination with ShowTopicChange", async () => {
    carol.setTopic("#main", "bridges today");
    const got = await apiMessage((m) => m.event === "topic_change");
    assert.equal(got.text, "set the channel topic: bridges today");
    assert.equal(got.username, "carol@irc");
  });

  it("never relays its own lines back, nor CTCP requests or private messages to it", async () => {
    const from = stream.items.length;
    await post(api, { text: "no echo please", username: "bob", gateway: "main" });
    await carol.waitForMessage("#main", "no echo please");
    carol.client.ctcpRequest("#main", "PING", "123");
    carol.say("bridgebot", "a private word");
    carol.say("#main", "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    const seen = stream.items.slice(from).map((m) => m.text);
    assert.deepEqual(seen, ["sentinel"]);
  });
});
