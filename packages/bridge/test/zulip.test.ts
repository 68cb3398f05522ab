// The zulip account through the real bin, against the Zulip simulator (testkit; itself checked with zulip-js): a topic
// bound as "stream/topic:topic" and a whole stream with a Topic option, both bridged with an api account. Text both
// ways with RemoteNickFormat, actions, upload links made absolute, edits and deletes mapped to the bridge's copies
// through the id cache, mass mentions neutralised, long texts clipped, a 429 waited out in order, an expired event
// queue and an outage followed by delivery of what was said meanwhile both ways, and refused credentials as one
// start-up line naming the keys.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  startZulipSimulator,
  waitUntil,
  type ZulipBotAction,
  type ZulipHuman,
  type ZulipSimulator,
  type ZulipUser,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { apiGatewayConfig, startWithApiStream } from "./api-gateway.ts";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { post, type StreamClient, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

function bridgeConfig(zulip: ZulipSimulator, bot: ZulipUser, account = "zulip.zu", key = bot.api_key): string {
  const table = `
[${account}]
Server = "${zulip.url}"
Login = "${bot.email}"
Token = "${key}"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
EditSuffix = " (edited)"
MessageClipped = "<cut>"
ReconnectDelay = 50
ReconnectMaxDelay = 200`;
  return apiGatewayConfig(table, {
    account,
    channels: ["general/topic:chat", { channel: "random", options: { Topic: "relay" } }],
  });
}

describe("zulip account with the Zulip simulator", () => {
  const teardown = suiteTeardown();
  let zulip: ZulipSimulator;
  let bot: ZulipUser;
  let ana: ZulipHuman;
  let bob: ZulipHuman;
  let bridge: BridgeProcess;
  let api: string;
  let stream: StreamClient;

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const botAction = (matches: (a: ZulipBotAction) => boolean, from = 0) =>
    zulip.sent.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "a bot action" });
  const output = () => bridge.process.output;

  before(async () => {
    zulip = await startZulipSimulator(teardown);
    bot = zulip.createBot("bridge-bot@example.com", "Bridge");
    ana = zulip.createUser("ana@example.com", "Ana B");
    bob = zulip.createUser("bob@example.com", "Bob");
    zulip.createStream("general", [ana.user, bob.user]);
    zulip.createStream("random", [ana.user, bob.user]);
    ana.say("general", "chat", "history before the bridge");
    ({ bridge, api, stream } = await startWithApiStream(bridgeConfig(zulip, bot), teardown));
  });

  it("subscribed to both streams and relays a topic's message to the api and the other stream", async () => {
    assert.ok(zulip.world.streamByName("general")?.subscribers.has(bot.user_id));
    ana.say("general", "chat", "hello from zulip");
    const got = await apiMessage((m) => m.text === "hello from zulip");
    assert.equal(got.username, "Ana B@zulip");
    assert.equal(got.userid, String(ana.user.user_id));
    assert.equal(got.channel, "general/topic:chat");
    const copy = await botAction((a) => a.stream === "random" && a.message.content.endsWith("hello from zulip"));
    assert.equal(copy.message.content, "[zulip] <Ana B> hello from zulip");
    assert.equal(copy.topic, "relay");
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("relays only the bound topic of a stream, and every topic of a whole stream", async () => {
    const from = stream.items.length;
    ana.say("general", "elsewhere", "not bridged");
    bob.say("random", "any topic", "whole stream");
    const got = await apiMessage((m) => m.text === "whole stream", from);
    assert.equal(got.channel, "random");
    assert.ok(!stream.items.slice(from).some((m) => m.text === "not bridged"));
  });

  it("posts an api message with the nick in front, and does not relay its own post back", async () => {
    const from = stream.items.length;
    await post(api, { text: "hello from the api", username: "carol", gateway: "main" });
    const posted = await botAction((a) => a.stream === "general" && a.message.content.endsWith("hello from the api"));
    assert.equal(posted.message.content, "[api] <carol> hello from the api");
    assert.equal(posted.topic, "chat");
    ana.say("general", "chat", "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays actions both ways and makes upload links absolute", async () => {
    ana.say("general", "chat", "/me waves");
    assert.equal((await apiMessage((m) => m.text === "waves")).event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    await botAction((a) => a.stream === "general" && a.message.content === "[api] <carol> *waves back*");
    ana.say("general", "chat", "see [plan.pdf](/user_uploads/2/ab/plan.pdf)");
    const link = await apiMessage((m) => m.text.startsWith("see [plan.pdf]"));
    assert.equal(link.text, `see [plan.pdf](${zulip.url}/user_uploads/2/ab/plan.pdf)`);
  });

  it("maps an edit and a delete to the bridge's copy in the other stream", async () => {
    const original = ana.say("general", "chat", "a typo here");
    const copy = await botAction((a) => a.stream === "random" && a.message.content.endsWith("a typo here"));
    const from = zulip.sent.items.length;
    ana.edit(original, "no typo here");
    const edit = await botAction((a) => a.kind === "edit", from);
    assert.equal(edit.message.id, copy.message.id);
    assert.equal(edit.message.content, "[zulip] <Ana B> no typo here (edited)");
    assert.equal((await apiMessage((m) => m.text.startsWith("no typo"))).text, "no typo here (edited)");
    ana.delete(original);
    const deleted = await botAction((a) => a.kind === "delete", from);
    assert.equal(deleted.message.id, copy.message.id);
  });

  it("neutralises mass mentions and clips a text over 10,000 characters", async () => {
    await post(api, { text: "@**all** and @**stream** look", username: "carol", gateway: "main" });
    const mention = await botAction((a) => a.stream === "general" && a.message.content.includes("look"));
    assert.equal(mention.message.content, "[api] <carol> @\u200d**all** and @\u200d**stream** look");
    await post(api, { text: "x".repeat(12_000), username: "carol", gateway: "main" });
    const long = await botAction((a) => a.stream === "general" && a.message.content.includes("xxxx"));
    assert.equal(long.message.content.length, 10_000);
    assert.ok(long.message.content.endsWith(" <cut>"));
  });

  it("waits as a 429 says and then delivers in order", async () => {
    const from = zulip.sent.items.length;
    zulip.rateLimit(1, { retryAfter: 1, path: /\/messages$/ });
    await post(api, { text: "limited one", username: "carol", gateway: "main" });
    await post(api, { text: "limited two", username: "carol", gateway: "main" });
    await botAction((a) => a.stream === "general" && a.message.content.endsWith("limited two"), from);
    assert.ok(zulip.requests.includes("POST /api/v1/messages -> 429"));
    const order = zulip.sent.items
      .slice(from)
      .filter((a) => a.stream === "general")
      .map((a) => a.message.content);
    assert.deepEqual(order, ["[api] <carol> limited one", "[api] <carol> limited two"]);
  });

  it("registers a new queue when Zulip forgets it, and reads back what was said meanwhile", async () => {
    const from = stream.items.length;
    zulip.expireQueues();
    // Said while the bot has no queue: only reading back can find it.
    ana.say("general", "chat", "said while the queue was gone");
    await apiMessage((m) => m.text === "said while the queue was gone", from);
    ana.say("general", "chat", "after the new queue");
    await apiMessage((m) => m.text === "after the new queue", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["said while the queue was gone", "after the new queue"],
    );
    assert.equal(zulip.queueCount(bot.user_id), 1);
    assert.doesNotMatch(output(), /zulip\.zu disconnected/, "an expired queue is not a disconnect");
  });

  it("after an outage, delivers what was said meanwhile both ways", async () => {
    const logFrom = output().length;
    zulip.setReachable(false);
    await waitUntil(() => output().slice(logFrom).includes("zulip.zu disconnected"), {
      timeoutMs: WAIT_MS,
      what: "the bridge to notice the outage",
    });
    await post(api, { text: "while down one", username: "carol", gateway: "main" });
    await post(api, { text: "while down two", username: "carol", gateway: "main" });
    ana.say("general", "chat", "said during the outage");
    const from = zulip.sent.items.length;
    const streamFrom = stream.items.length;
    zulip.setReachable(true);
    await botAction((a) => a.stream === "general" && a.message.content.endsWith("while down two"), from);
    const order = zulip.sent.items
      .slice(from)
      .filter((a) => a.stream === "general")
      .map((a) => a.message.content);
    assert.deepEqual(order, ["[api] <carol> while down one", "[api] <carol> while down two"]);
    await apiMessage((m) => m.text === "said during the outage", streamFrom);
    await waitUntil(() => output().slice(logFrom).includes("zulip.zu reconnected"), {
      timeoutMs: WAIT_MS,
      what: "the reconnected log line",
    });
    assert.equal(stream.items.slice(streamFrom).filter((m) => m.text === "said during the outage").length, 1);
  });

  it("fails start-up with one line naming the keys for a refused API key", async () => {
    await assert.rejects(
      startBridgeProcess(bridgeConfig(zulip, bot, "zulip.bad", "wrong-key"), teardown),
      /\[zulip\.bad\].*Zulip refused Login and Token/,
    );
  });

  it("made no request the simulator does not know", () => {
    assert.deepEqual(zulip.unhandled, []);
  });
});
