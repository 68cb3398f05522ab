// Twitch chat through the irc account (Twitch = true), against the Twitch IRC simulator, through the real bin: display
// names and ids from tags, replies both ways (reply-parent-msg-id), CLEARMSG relayed as msg_delete, USERNOTICE
// ignored, a refused token as one start-up line; and Twitch's sliding-window limit on its own, on a fake clock.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { runToExit, startTwitchIrc, type TwitchIrc } from "@switchboard/testkit";
import { applyTwitchTags, deleteMessage, isTwitch, SlidingWindowLimit } from "../src/accounts/irc/twitch.ts";
import { emptyMessage, type Message } from "../src/message.ts";
import { BIN, startBridgeProcess } from "./bridge-process.ts";
import { openStream, post, type StreamClient, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

const config = (port: number, token: string) => `
[irc.twitch]
Server = "127.0.0.1:${port}"
Twitch = true
Nick = "bridgebot"
Password = "oauth:${token}"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
MessageDelay = 0

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}"
PreserveThreading = true

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "irc.twitch"
  channel = "#stream"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;

describe("irc account on Twitch chat", () => {
  const teardown = suiteTeardown();
  let twitch: TwitchIrc;
  let api: string;
  let stream: StreamClient;
  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });

  before(async () => {
    twitch = await startTwitchIrc(teardown, { refusedTokens: ["revoked"] });
    const bridge = await startBridgeProcess(config(twitch.port, "good"), teardown);
    api = bridge.url("api.local");
    stream = await openStream(api);
    teardown.after(() => stream.close());
  });

  it("relays a chatter's message under the display name and Twitch's user id; a reply without Twitch's @mention", async () => {
    const parent = twitch.say("#stream", { login: "alice", displayName: "Alice_B", userId: "1234" }, "hello chat");
    const got = await apiMessage((m) => m.text === "hello chat");
    assert.equal(got.username, "Alice_B");
    assert.equal(got.userid, "1234");
    assert.equal(got.channel, "#stream");
    twitch.say("#stream", { login: "bob" }, "@alice answer", { id: parent, login: "alice", text: "hello chat" });
    // The api keeps no copy of the parent to name, so the core says so; the id mapping itself is the core's.
    assert.equal((await apiMessage((m) => m.text === "answer")).parent_id, "msg-parent-not-found");
  });

  it("sends api messages to the channel under RemoteNickFormat, without a reply tag when there is no parent", async () => {
    await post(api, { text: "hello twitch", username: "carol", gateway: "main" });
    const plain = await twitch.sent.waitFor((m) => m.text.endsWith("hello twitch"), { timeoutMs: WAIT_MS });
    assert.equal(plain.text, "[api] <carol> hello twitch");
    assert.equal(plain.login, "bridgebot");
    assert.equal(plain.tags["reply-parent-msg-id"], undefined);
  });

  it("relays nothing from a USERNOTICE", async () => {
    const from = stream.items.length;
    twitch.userNotice("#stream", "subscribed for 3 months");
    twitch.say("#stream", { login: "alice" }, "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("a refused token stops start-up with one line naming Password, without the token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "twitch-refused-"));
    teardown.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "bridge.toml");
    writeFileSync(path, config(twitch.port, "revoked"));
    const run = await runToExit({ command: process.execPath, args: [BIN, "-conf", path], timeoutMs: 60_000 });
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? "", /irc\.twitch.*Twitch refused the login.*Password/);
    assert.doesNotMatch(run.stdout + run.stderr, /oauth:revoked/);
  });
});

describe("Twitch tags, mode and rate limit", () => {
  it("takes a message's id, display name, user id and reply parent from its tags; CLEARMSG names the deleted id", () => {
    const message = applyTwitchTags(emptyMessage({ text: "@alice sure", username: "bob", channel: "#s" }), {
      id: "m-2",
      "display-name": "Bob_",
      "user-id": "42",
      "reply-parent-msg-id": "m-1",
      "reply-parent-user-login": "alice",
    });
    assert.deepEqual(
      [message.id, message.username, message.userid, message.parent_id, message.text],
      ["m-2", "Bob_", "42", "m-1", "sure"],
    );
    const deleted = deleteMessage("#s", { "target-msg-id": "m-1", login: "alice" });
    assert.deepEqual([deleted?.event, deleted?.id, deleted?.channel], ["msg_delete", "m-1", "#s"]);
    assert.equal(deleteMessage("#s", {}), undefined);
  });

  it("is on for Twitch's chat host or with Twitch = true", () => {
    assert.equal(isTwitch({ Twitch: false, Server: "irc.chat.twitch.tv:6697" }), true);
    assert.equal(isTwitch({ Twitch: true, Server: "127.0.0.1:6667" }), true);
    assert.equal(isTwitch({ Twitch: false, Server: "irc.libera.chat:6697" }), false);
  });

  it("lets 20 messages through in any 30 s and spaces the rest to when the oldest leaves the window", () => {
    let now = 0;
    const window = new SlidingWindowLimit(30_000, () => now);
    const waits = Array.from({ length: 20 }, () => window.reserve(20));
    assert.deepEqual(new Set(waits), new Set([0]));
    now = 10_000;
    assert.equal(window.reserve(20), 20_000);
    assert.equal(window.reserve(20), 20_000);
    // A moderator's bound of 100 has room at once.
    assert.equal(window.reserve(100), 0);
    now = 31_000;
    assert.equal(window.reserve(20), 0);
  });
});
