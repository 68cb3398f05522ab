// The matrix account through matrix-js-sdk against the fake homeserver (testkit), with humans acting in two rooms
// the bot bridges and an api account on the same gateway: text both ways with RemoteNickFormat, actions, history
// not relayed, edits, deletes and replies mapped from one room to the bot's copies in the other through the id cache
// (the api has no message ids, so room-to-room is where the mapping shows), a 429 followed by delivery in order, an
// outage followed by delivery of what was sent meanwhile both ways, and refused credentials as a start-up error.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type FakeMatrix,
  type MatrixHuman,
  type MatrixRoomEvent,
  startFakeMatrix,
  waitUntil,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { openStream, post, type RunningBridge, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;
const BOT = "@bridgebot:localhost";

function bridgeConfig(url: string, auth: string): string {
  return `
[matrix.hs]
Server = "${url}"
${auth}
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
ReconnectDelay = 50
ReconnectMaxDelay = 200

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}@{PROTOCOL}"

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "matrix.hs"
  channel = "#main:localhost"
  [[gateway.inout]]
  account = "matrix.hs"
  channel = "#side:localhost"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

describe("matrix account with the fake homeserver", () => {
  const teardown = suiteTeardown();
  let fake: FakeMatrix;
  let alice: MatrixHuman;
  let bob: MatrixHuman;
  let main: string;
  let side: string;
  let bridge: RunningBridge;
  let api: string;
  let stream: StreamClient;

  /** The first message on the api stream (after `from`) that matches. */
  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    waitUntil(() => stream.items.slice(from).find(matches), {
      timeoutMs: WAIT_MS,
      intervalMs: 5,
      what: "an api message",
    });

  /** The first event the bot sent to a room (after `from`) that matches. */
  const botEvent = (roomId: string, matches: (e: MatrixRoomEvent) => boolean, from = 0) =>
    fake.waitForEvent((e) => e.room_id === roomId && e.sender === BOT && matches(e), { from, what: "a bot event" });

  const bodyOf = (e: MatrixRoomEvent) => String(e.content.body ?? "");

  before(async () => {
    fake = await startFakeMatrix(teardown, { log: () => {} });
    alice = fake.registerUser("alice", { displayName: "Alice" });
    bob = fake.registerUser("bob", { displayName: "Bob" });
    fake.registerUser("bridgebot", { password: "botpw" });
    main = fake.createRoom(alice, { alias: "main" });
    side = fake.createRoom(alice, { alias: "side" });
    bob.join(side);
    alice.say(main, "history before the bridge");
    bridge = await startBridge(bridgeConfig(fake.url, 'Login = "bridgebot"\nPassword = "botpw"'), teardown);
    api = bridge.url("api.local");
    stream = await openStream(api);
    teardown.after(() => stream.close());
  });

  it("relays a Matrix message to the api and the other room with each one's RemoteNickFormat", async () => {
    const id = alice.say(main, "hello from matrix");
    const got = await apiMessage((m) => m.text === "hello from matrix");
    assert.equal(got.username, "Alice@matrix");
    assert.equal(got.channel, "#main:localhost");
    assert.equal(got.account, "matrix.hs");
    assert.equal(got.userid, "@alice:localhost");
    assert.equal(got.event, "");
    const copy = await botEvent(side, (e) => bodyOf(e).endsWith("hello from matrix"));
    assert.equal(copy.content.body, "[matrix] <Alice> hello from matrix");
    assert.equal(copy.content.msgtype, "m.text");
    assert.notEqual(copy.event_id, id);
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("sends an api message to both rooms as m.text with HTML, and never relays its own events back", async () => {
    const from = stream.items.length;
    await post(api, { text: "hello **from** the api", username: "carol", gateway: "main" });
    const inMain = await botEvent(main, (e) => bodyOf(e).includes("from** the api"));
    assert.equal(inMain.content.body, "[api] <carol> hello **from** the api");
    assert.equal(inMain.content.format, "org.matrix.custom.html");
    assert.equal(inMain.content.formatted_body, "[api] &lt;carol&gt; hello <strong>from</strong> the api");
    await botEvent(side, (e) => bodyOf(e).includes("from** the api"));
    alice.say(main, "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays actions both ways as m.emote / user_action", async () => {
    alice.emote(main, "waves");
    const got = await apiMessage((m) => m.text === "waves");
    assert.equal(got.event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    const emote = await botEvent(main, (e) => bodyOf(e).includes("waves back"));
    assert.equal(emote.content.msgtype, "m.emote");
    assert.equal(emote.content.body, "[api] <carol> waves back");
  });

  it("maps an edit and a redaction to the bot's copy in the other room through the id cache", async () => {
    const original = alice.say(main, "a typo here");
    const copy = await botEvent(side, (e) => bodyOf(e).endsWith("a typo here"));
    await apiMessage((m) => m.text === "a typo here");

    alice.edit(main, original, "no typo here");
    const edit = await botEvent(side, (e) => e.content["m.relates_to"] !== undefined && bodyOf(e).includes("no typo"));
    assert.deepEqual(edit.content["m.relates_to"], { rel_type: "m.replace", event_id: copy.event_id });
    assert.equal((edit.content["m.new_content"] as { body: string }).body, "[matrix] <Alice> no typo here");
    assert.equal(edit.content.body, "* [matrix] <Alice> no typo here");
    const edited = await apiMessage((m) => m.text === "no typo here");
    assert.equal(edited.username, "Alice@matrix");

    alice.redact(main, original);
    const redaction = await botEvent(side, (e) => e.type === "m.room.redaction");
    assert.equal(redaction.redacts, copy.event_id);
  });

  it("maps a reply to the bot's copy back to the original, without the quoted fallback", async () => {
    const original = alice.say(main, "who agrees?");
    const copy = await botEvent(side, (e) => bodyOf(e).endsWith("who agrees?"));
    bob.reply(side, copy.event_id, "I agree");
    const reply = await botEvent(main, (e) => bodyOf(e).endsWith("I agree"));
    assert.equal(reply.content.body, "[matrix] <Bob> I agree");
    assert.deepEqual(reply.content["m.relates_to"], { "m.in_reply_to": { event_id: original } });
    const atApi = await apiMessage((m) => m.text === "I agree");
    assert.equal(atApi.username, "Bob@matrix");
    assert.equal(atApi.parent_id, "msg-parent-not-found");
  });

  it("waits as a 429 says and then delivers in order", async () => {
    const start = fake.requests.length;
    fake.rateLimitNext(1, { retryAfterMs: 300, matches: (method, path) => method === "PUT" && path.includes(main) });
    await post(api, { text: "limited one", username: "carol", gateway: "main" });
    await post(api, { text: "limited two", username: "carol", gateway: "main" });
    await botEvent(main, (e) => bodyOf(e).endsWith("limited two"));
    const limited = fake.requests.slice(start).filter((r) => r.status === 429);
    assert.equal(limited.length, 1);
    const order = fake.events.items
      .filter((e) => e.room_id === main && e.sender === BOT && bodyOf(e).includes("limited"))
      .map(bodyOf);
    assert.deepEqual(order, ["[api] <carol> limited one", "[api] <carol> limited two"]);
  });

  it("after a dropped connection, delivers what was sent meanwhile both ways", async () => {
    const logFrom = bridge.logs.length;
    fake.setOffline(true);
    await waitUntil(() => bridge.logs.slice(logFrom).some((line) => line.includes("matrix.hs disconnected")), {
      timeoutMs: WAIT_MS,
      what: "the bridge to notice the outage",
    });
    await post(api, { text: "while down one", username: "carol", gateway: "main" });
    await post(api, { text: "while down two", username: "carol", gateway: "main" });
    alice.say(main, "said during the outage");
    fake.setOffline(false);
    await botEvent(main, (e) => bodyOf(e).endsWith("while down two"));
    const order = fake.events.items
      .filter((e) => e.room_id === main && e.sender === BOT && bodyOf(e).includes("while down"))
      .map(bodyOf);
    assert.deepEqual(order, ["[api] <carol> while down one", "[api] <carol> while down two"]);
    await apiMessage((m) => m.text === "said during the outage");
    await waitUntil(() => bridge.logs.slice(logFrom).some((line) => line.includes("matrix.hs reconnected")), {
      timeoutMs: WAIT_MS,
      what: "the reconnected log line",
    });
  });

  it("fails start-up with one error naming the account when the homeserver refuses the token", async () => {
    await assert.rejects(
      startBridge(bridgeConfig(fake.url, 'Token = "syt_not_a_token"').replaceAll("matrix.hs", "matrix.bad"), teardown),
      /\[matrix\.bad\].*Token.*M_UNKNOWN_TOKEN/,
    );
  });

  it("fails start-up when the homeserver refuses the password", async () => {
    await assert.rejects(
      startBridge(
        bridgeConfig(fake.url, 'Login = "bridgebot"\nPassword = "wrong"').replaceAll("matrix.hs", "matrix.pw"),
        teardown,
      ),
      /\[matrix\.pw\].*M_FORBIDDEN.*Login and Password/,
    );
  });

  it("made no request the fake does not know", () => {
    assert.deepEqual(fake.unhandled, []);
  });
});
