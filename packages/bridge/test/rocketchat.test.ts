// The rocketchat account through the real bin, against the Rocket.Chat simulator (testkit): two rooms and an api
// account on one gateway. Text both ways (posted under the relayed nick with alias and avatar, as Matterbridge
// does), actions, edits and deletes mapped to the bridge's copies through the id cache, threads (tmid), joins and
// leaves with ShowJoinPart, mass mentions neutralised, long texts clipped, a 429 waited out in order, an outage
// followed by what was said, edited and deleted meanwhile both ways, PrefixMessagesWithNick for a bot without the
// bot role, and refused credentials as one start-up line naming the keys.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type RocketChatBotAction,
  type RocketChatHuman,
  type RocketChatSimulator,
  startRocketChatSimulator,
  waitUntil,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { apiGatewayConfig, startWithApiStream } from "./api-gateway.ts";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { post, type StreamClient, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

function bridgeConfig(rc: RocketChatSimulator, auth: string, account = "rocketchat.rc", extra = ""): string {
  const table = `
[${account}]
Server = "${rc.url}"
${auth}
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
EditSuffix = " (edited)"
MessageClipped = "<cut>"
ReconnectDelay = 50
ReconnectMaxDelay = 200
${extra}`;
  return apiGatewayConfig(table, { account, channels: ["#general", "#random"], api: "ShowJoinPart = true" });
}

describe("rocketchat account with the Rocket.Chat simulator", () => {
  const teardown = suiteTeardown();
  let rc: RocketChatSimulator;
  let ana: RocketChatHuman;
  let bob: RocketChatHuman;
  let bridge: BridgeProcess;
  let api: string;
  let stream: StreamClient;

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const botAction = (matches: (a: RocketChatBotAction) => boolean, from = 0) =>
    rc.sent.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "a bot action" });
  const output = () => bridge.process.output;
  /** Returns once every send to `room` so far was answered: its ids are in the id cache. */
  const queueSettled = async (room: string) => {
    const marker = `marker ${rc.sent.items.length}`;
    await post(api, { text: marker, username: "carol", gateway: "main" });
    await botAction((a) => a.room === room && a.message.msg === marker);
  };

  before(async () => {
    rc = await startRocketChatSimulator(teardown);
    rc.createBot("bridgebot", "botpw");
    rc.createBot("plainbot", "plainpw", { bot: false });
    ana = rc.createUser("ana");
    bob = rc.createUser("bob");
    rc.createRoom("general", [ana.user, bob.user]);
    rc.createRoom("random", [ana.user, bob.user]);
    ana.say("general", "history before the bridge");
    ({ bridge, api, stream } = await startWithApiStream(
      bridgeConfig(rc, 'Login = "bridgebot"\nPassword = "botpw"'),
      teardown,
    ));
  });

  it("joined both rooms and relays a message to the api and the other room under the nick", async () => {
    const bot = [...rc.world.users.values()].find((u) => u.username === "bridgebot");
    assert.equal(rc.subscriptions(bot?._id ?? "", "general"), 1);
    ana.say("general", "hello from rocket.chat");
    const got = await apiMessage((m) => m.text === "hello from rocket.chat");
    assert.equal(got.username, "ana@rocketchat");
    assert.equal(got.userid, ana.user._id);
    assert.equal(got.channel, "#general");
    assert.equal(got.avatar, `${rc.url}/avatar/ana`);
    const copy = await botAction((a) => a.room === "random" && a.message.msg === "hello from rocket.chat");
    assert.equal(copy.message.alias, "[rocketchat] <ana>");
    assert.equal(copy.message.avatar, `${rc.url}/avatar/ana`);
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("posts an api message under the nick, and does not relay its own post back", async () => {
    const from = stream.items.length;
    await post(api, { text: "hello from the api", username: "carol", gateway: "main" });
    const posted = await botAction((a) => a.room === "general" && a.message.msg === "hello from the api");
    assert.equal(posted.message.alias, "[api] <carol>");
    ana.say("general", "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays actions both ways", async () => {
    ana.say("general", "_waves_");
    assert.equal((await apiMessage((m) => m.text === "waves")).event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    await botAction((a) => a.room === "general" && a.message.msg === "_waves back_");
  });

  it("maps an edit and a delete to the bridge's copy in the other room", async () => {
    const original = ana.say("general", "a typo here");
    const copy = await botAction((a) => a.room === "random" && a.message.msg === "a typo here");
    const from = rc.sent.items.length;
    ana.edit(original, "no typo here");
    const edit = await botAction((a) => a.kind === "edit", from);
    assert.equal(edit.message._id, copy.message._id);
    assert.equal(edit.message.msg, "no typo here (edited)");
    assert.equal((await apiMessage((m) => m.text.startsWith("no typo"))).text, "no typo here (edited)");
    ana.delete(original);
    const deleted = await botAction((a) => a.kind === "delete", from);
    assert.equal(deleted.message._id, copy.message._id);
  });

  it("keeps threads: a reply to the bridge's copy lands in the original's thread", async () => {
    const root = ana.say("general", "who agrees?");
    const copy = await botAction((a) => a.room === "random" && a.message.msg === "who agrees?");
    await queueSettled("random");
    bob.say("random", "I agree", { tmid: copy.message._id });
    const reply = await botAction((a) => a.room === "general" && a.message.msg === "I agree");
    assert.equal(reply.message.tmid, root);
    await queueSettled("general");
    ana.say("general", "me too", { tmid: reply.message._id });
    const second = await botAction((a) => a.room === "random" && a.message.msg === "me too");
    assert.equal(second.message.tmid, copy.message._id);
  });

  it("relays joins and leaves to an account with ShowJoinPart", async () => {
    const carl = rc.createUser("carl");
    carl.join("general");
    assert.equal((await apiMessage((m) => m.event === "join_leave")).text, "carl joined the channel");
    carl.leave("general");
    await apiMessage((m) => m.event === "join_leave" && m.text === "carl left the channel");
  });

  it("neutralises @all and @here and clips a text over 5,000 characters", async () => {
    await post(api, { text: "@all and @here look", username: "carol", gateway: "main" });
    const mention = await botAction((a) => a.room === "general" && a.message.msg.includes("look"));
    assert.equal(mention.message.msg, "@\u200dall and @\u200dhere look");
    await post(api, { text: "y".repeat(6000), username: "carol", gateway: "main" });
    const long = await botAction((a) => a.room === "general" && a.message.msg.startsWith("yyyy"));
    assert.equal(long.message.msg.length, 5000);
    assert.ok(long.message.msg.endsWith(" <cut>"));
  });

  it("waits as a 429 says and then delivers in order", async () => {
    const from = rc.sent.items.length;
    rc.rateLimit(1, { retryAfter: 1, path: /chat\.postMessage$/ });
    await post(api, { text: "limited one", username: "carol", gateway: "main" });
    await post(api, { text: "limited two", username: "carol", gateway: "main" });
    await botAction((a) => a.room === "general" && a.message.msg === "limited two", from);
    assert.ok(rc.requests.includes("POST /api/v1/chat.postMessage -> 429"));
    const order = rc.sent.items
      .slice(from)
      .filter((a) => a.room === "general")
      .map((a) => a.message.msg);
    assert.deepEqual(order, ["limited one", "limited two"]);
  });

  it("after an outage, delivers what was said, edited and deleted meanwhile both ways", async () => {
    const edited = ana.say("general", "to be edited while away");
    const removed = ana.say("general", "to be deleted while away");
    await botAction((a) => a.room === "random" && a.message.msg === "to be deleted while away");
    await queueSettled("random");
    const logFrom = output().length;
    rc.setReachable(false);
    await waitUntil(() => output().slice(logFrom).includes("rocketchat.rc disconnected"), {
      timeoutMs: WAIT_MS,
      what: "the bridge to notice the outage",
    });
    await post(api, { text: "while down one", username: "carol", gateway: "main" });
    await post(api, { text: "while down two", username: "carol", gateway: "main" });
    ana.say("general", "said during the outage");
    ana.edit(edited, "edited while away");
    ana.delete(removed);
    const from = rc.sent.items.length;
    const streamFrom = stream.items.length;
    rc.setReachable(true);
    await botAction((a) => a.room === "general" && a.message.msg === "while down two", from);
    const order = rc.sent.items
      .slice(from)
      .filter((a) => a.room === "general" && a.kind === "post")
      .map((a) => a.message.msg);
    assert.deepEqual(order, ["while down one", "while down two"]);
    await apiMessage((m) => m.text === "said during the outage", streamFrom);
    await apiMessage((m) => m.text === "edited while away (edited)", streamFrom);
    await botAction((a) => a.room === "random" && a.kind === "delete", from);
    await waitUntil(() => output().slice(logFrom).includes("rocketchat.rc reconnected"), {
      timeoutMs: WAIT_MS,
      what: "the reconnected log line",
    });
    assert.equal(stream.items.slice(streamFrom).filter((m) => m.text === "said during the outage").length, 1);
  });

  it("prefixes the nick for a bot without the bot role", async () => {
    const plain = await startBridgeProcess(
      bridgeConfig(rc, 'Login = "plainbot"\nPassword = "plainpw"', "rocketchat.plain", "PrefixMessagesWithNick = true"),
      teardown,
    );
    const from = rc.sent.items.length;
    await post(plain.url("api.local"), { text: "prefixed", username: "dave", gateway: "main" });
    const sent = await botAction((a) => a.room === "general" && a.message.msg.endsWith("prefixed"), from);
    assert.equal(sent.message.msg, "[api] <dave> prefixed");
    assert.equal(sent.message.alias, undefined);
  });

  it("fails start-up with one line naming the keys for a refused password", async () => {
    await assert.rejects(
      startBridgeProcess(bridgeConfig(rc, 'Login = "bridgebot"\nPassword = "wrong"', "rocketchat.bad"), teardown),
      /\[rocketchat\.bad\].*Rocket\.Chat refused Login and Password/,
    );
  });

  it("made no request the simulator does not know", () => {
    assert.deepEqual(rc.unhandled, []);
  });
});
