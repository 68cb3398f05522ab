// The rocketchat account's webhook mode through the real bin, against the Rocket.Chat simulator's integrations:
// with WebhookURL and WebhookBindAddress it posts through the incoming webhook (alias, avatar, channel, tmid) and
// reads the outgoing webhook's calls (checking their Token), without a bot user; with Login and WebhookBindAddress
// it posts over the REST API (so edits reach its copies) and reads the outgoing webhook; with WebhookURL and Login
// it reads the realtime API and posts through the incoming webhook. The bridge's own posts never come back.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type Inbox,
  type RocketChatHuman,
  type RocketChatOutgoingCall,
  type RocketChatSimulator,
  startRocketChatSimulator,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { apiGatewayConfig, startWithApiStream } from "./api-gateway.ts";
import type { BridgeProcess } from "./bridge-process.ts";
import { http, post, type StreamClient, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;
const TOKEN = "outgoing-token-1";

function bridgeConfig(keys: string): string {
  const table = `
[rocketchat.rc]
${keys}
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
EditSuffix = " (edited)"
`;
  return apiGatewayConfig(table, { account: "rocketchat.rc", channels: ["#general", "#random"] });
}

interface Setup {
  rc: RocketChatSimulator;
  ana: RocketChatHuman;
  bob: RocketChatHuman;
  bridge: BridgeProcess;
  api: string;
  stream: StreamClient;
  /** The outgoing webhook's calls and what the bridge answered (when the mode reads them). */
  calls?: Inbox<RocketChatOutgoingCall>;
}

/** A simulator with rooms, a hook user and a bot user, and the bin started with `keys(rc, hookUrl)`. */
async function start(
  teardown: ReturnType<typeof suiteTeardown>,
  keys: (rc: RocketChatSimulator, hookUrl: string) => string,
  outgoing: boolean,
): Promise<Setup> {
  const rc = await startRocketChatSimulator(teardown);
  const hookbot = rc.createBot("hookbot", "unused-password");
  rc.createBot("bridgebot", "botpw");
  const ana = rc.createUser("ana");
  const bob = rc.createUser("bob");
  rc.createRoom("general", [ana.user, bob.user, hookbot]);
  rc.createRoom("random", [ana.user, bob.user, hookbot]);
  const hookUrl = rc.createIncomingWebhook({ postAs: hookbot, channel: "general" });
  const { bridge, api, stream } = await startWithApiStream(bridgeConfig(keys(rc, hookUrl)), teardown);
  const setup: Setup = { rc, ana, bob, bridge, api, stream };
  if (outgoing) setup.calls = rc.createOutgoingWebhook({ url: bridge.url("rocketchat.rc"), token: TOKEN });
  return setup;
}

describe("rocketchat webhook mode: incoming and outgoing webhooks, no bot user", () => {
  const teardown = suiteTeardown();
  let s: Setup;
  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    s.stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const hookPost = (room: string, text: string) =>
    s.rc.sent.waitFor((a) => a.room === room && a.message.msg === text, { timeoutMs: WAIT_MS, what: text });

  before(async () => {
    s = await start(
      teardown,
      (_rc, hookUrl) =>
        `WebhookURL = "${hookUrl}"\nWebhookBindAddress = "127.0.0.1:0"\nToken = "${TOKEN}"\nNick = "hookbot"`,
      true,
    );
  });

  it("relays a message read from the outgoing webhook, and posts its copy through the incoming webhook", async () => {
    const id = s.ana.say("general", "hello through hooks");
    const got = await apiMessage((m) => m.text === "hello through hooks");
    assert.deepEqual([got.username, got.userid, got.channel], ["ana@rocketchat", s.ana.user._id, "#general"]);
    assert.equal(got.avatar, `${s.rc.url}/avatar/ana`);
    const copy = await hookPost("random", "hello through hooks");
    assert.equal(copy.message.alias, "[rocketchat] <ana>");
    assert.equal(copy.message.u.username, "hookbot");
    assert.ok(copy.message.bot, "posted by the integration");
    // Rocket.Chat got {} back: nothing for it to post in the room.
    const answered = await s.calls?.waitFor((c) => c.payload.message_id === id, { timeoutMs: WAIT_MS });
    assert.deepEqual([answered?.status, answered?.body], [200, "{}"]);
  });

  it("posts api messages under the nick, and does not read its own posts back", async () => {
    const from = s.stream.items.length;
    await post(s.api, { text: "from the api", username: "carol", gateway: "main" });
    const posted = await hookPost("general", "from the api");
    assert.equal(posted.message.alias, "[api] <carol>");
    // The outgoing webhook called back with the bridge's own post (user hookbot): it is not relayed.
    await s.calls?.waitFor((c) => c.payload.text === "from the api", { timeoutMs: WAIT_MS });
    s.ana.say("general", "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      s.stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays edits read from the outgoing webhook (isEdited); their copies posted anew, as Rocket.Chat gives no id", async () => {
    const root = s.ana.say("general", "question");
    await hookPost("random", "question");
    s.ana.edit(root, "question, edited");
    await apiMessage((m) => m.text === "question, edited (edited)");
    await hookPost("random", "question, edited (edited)");
  });

  it("refuses calls without the token or with another one, and relays nothing from them", async () => {
    const url = s.bridge.url("rocketchat.rc");
    const call = (body: Record<string, unknown>) =>
      http(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const forged = { channel_name: "general", user_name: "mallory", text: "forged", message_id: "x1" };
    const wrong = await call({ ...forged, token: "guess" });
    assert.equal(wrong.status, 403);
    assert.match(JSON.parse(wrong.body).message, /Token/);
    assert.equal((await call(forged)).status, 401);
    const from = s.stream.items.length;
    s.ana.say("general", "after the forgeries");
    await apiMessage((m) => m.text === "after the forgeries", from);
    assert.ok(!s.stream.items.some((m) => m.text === "forged"));
  });
});

describe("rocketchat with Login and WebhookBindAddress: REST sends, the outgoing webhook receives", () => {
  const teardown = suiteTeardown();
  let s: Setup;

  before(async () => {
    s = await start(
      teardown,
      (rc) => `Server = "${rc.url}"\nLogin = "bridgebot"\nPassword = "botpw"\nWebhookBindAddress = "127.0.0.1:0"`,
      true,
    );
  });

  it("relays both ways, edits and thread replies reaching the bot's copies, its own posts not read back", async () => {
    const id = s.ana.say("general", "mixed hello");
    await s.stream.waitFor((m) => m.text === "mixed hello", { timeoutMs: WAIT_MS });
    const copy = await s.rc.sent.waitFor((a) => a.room === "random" && a.message.msg === "mixed hello", {
      timeoutMs: WAIT_MS,
    });
    assert.equal(copy.message.u.username, "bridgebot");
    assert.equal(copy.message.bot, undefined, "posted over the REST API");
    s.ana.edit(id, "mixed hello again");
    const edit = await s.rc.sent.waitFor((a) => a.kind === "edit", { timeoutMs: WAIT_MS });
    assert.deepEqual([edit.message._id, edit.message.msg], [copy.message._id, "mixed hello again (edited)"]);
    s.bob.say("general", "a reply", { tmid: id });
    const reply = await s.rc.sent.waitFor((a) => a.room === "random" && a.message.msg === "a reply", {
      timeoutMs: WAIT_MS,
    });
    assert.equal(reply.message.tmid, copy.message._id);
    const from = s.stream.items.length;
    s.ana.say("general", "mixed sentinel");
    await s.stream.waitFor((m) => m.text === "mixed sentinel", { from, timeoutMs: WAIT_MS });
    assert.deepEqual(
      s.stream.items.slice(from).map((m) => m.text),
      ["mixed sentinel"],
    );
  });
});

describe("rocketchat with WebhookURL and Login: the realtime API receives, the incoming webhook sends", () => {
  const teardown = suiteTeardown();
  let s: Setup;

  before(async () => {
    s = await start(
      teardown,
      (rc, hookUrl) =>
        `Server = "${rc.url}"\nLogin = "bridgebot"\nPassword = "botpw"\nWebhookURL = "${hookUrl}"\nNick = "hookbot"`,
      false,
    );
  });

  it("relays a message read in realtime through the incoming webhook, and not its own post back", async () => {
    s.ana.say("general", "realtime hello");
    await s.stream.waitFor((m) => m.text === "realtime hello", { timeoutMs: WAIT_MS });
    const copy = await s.rc.sent.waitFor((a) => a.room === "random" && a.message.msg === "realtime hello", {
      timeoutMs: WAIT_MS,
    });
    assert.equal(copy.message.u.username, "hookbot");
    assert.equal(copy.message.alias, "[rocketchat] <ana>");
    const from = s.stream.items.length;
    s.ana.say("general", "realtime sentinel");
    await s.stream.waitFor((m) => m.text === "realtime sentinel", { from, timeoutMs: WAIT_MS });
    assert.deepEqual(
      s.stream.items.slice(from).map((m) => m.text),
      ["realtime sentinel"],
    );
  });
});
