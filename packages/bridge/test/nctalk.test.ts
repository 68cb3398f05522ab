// The nctalk account (the real bin) against the Nextcloud Talk simulator (testkit), with humans in two conversations
// the account bridges and an api account on the same gateway: text both ways with RemoteNickFormat, actions, edits
// and deletes mapped to the bridge's copies through the id cache, replies, guests with GuestSuffix, mentions and
// shared files filled in, mass mentions neutralised, a 429 waited out in order, an outage after which what was said
// meanwhile arrives both ways exactly once, SeparateDisplayName, and a refused app password as one start-up line.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  startTalkSimulator,
  type TalkBotAction,
  type TalkHuman,
  type TalkSimulator,
  waitUntil,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { apiGatewayConfig, startWithApiStream } from "./api-gateway.ts";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { post, type StreamClient, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

function bridgeConfig(talk: TalkSimulator, rooms: { general: string; random: string }, extra = ""): string {
  const table = `
[nctalk.cloud]
Server = "${talk.url}"
Login = "bridgebot"
Password = "bot-app-password"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
EditSuffix = " (edited)"
ReconnectDelay = 50
ReconnectMaxDelay = 200
${extra}`;
  return apiGatewayConfig(table, { account: "nctalk.cloud", channels: [rooms.general, rooms.random] });
}

describe("nctalk account with the Nextcloud Talk simulator", () => {
  const teardown = suiteTeardown();
  let talk: TalkSimulator;
  let ana: TalkHuman;
  let bob: TalkHuman;
  let rooms: { general: string; random: string };
  let bridge: BridgeProcess;
  let api: string;
  let stream: StreamClient;

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const botAction = (matches: (a: TalkBotAction) => boolean, from = 0) =>
    talk.sent.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "a bot action" });
  const posted = (room: string, text: string, from = 0) =>
    botAction((a) => a.kind === "post" && a.room === room && a.message.message === text, from);
  /** Returns once every send to `room` so far was answered: its ids are in the id cache. */
  const queueSettled = async (room: string) => {
    const marker = `marker ${talk.sent.items.length}`;
    await post(api, { text: marker, username: "carol", gateway: "main" });
    await posted(room, `[api] <carol> ${marker}`);
  };

  before(async () => {
    talk = await startTalkSimulator(teardown);
    const bot = talk.createBot("bridgebot", "bot-app-password", "Bridge Bot");
    ana = talk.createUser("ana", "Ana B");
    bob = talk.createUser("bob");
    rooms = {
      general: talk.createRoom("General", [ana, bob, bot]),
      random: talk.createRoom("Random", [ana, bob, bot]),
    };
    ana.say(rooms.general, "history before the bridge");
    ({ bridge, api, stream } = await startWithApiStream(bridgeConfig(talk, rooms), teardown));
  });

  it("relays a message to the api and the other conversation under the display name", async () => {
    ana.say(rooms.general, "hello from talk");
    const got = await apiMessage((m) => m.text === "hello from talk");
    assert.equal(got.username, "Ana B@nctalk");
    assert.equal(got.userid, "ana");
    assert.equal(got.channel, rooms.general);
    await posted(rooms.random, "[nctalk] <Ana B> hello from talk");
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("posts an api message with the nick in front, and does not relay its own message back", async () => {
    const from = stream.items.length;
    await post(api, { text: "hello from the api", username: "carol", gateway: "main" });
    await posted(rooms.general, "[api] <carol> hello from the api");
    ana.say(rooms.general, "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays actions both ways", async () => {
    ana.say(rooms.general, "*waves*");
    assert.equal((await apiMessage((m) => m.text === "waves")).event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    await posted(rooms.general, "[api] <carol> *waves back*");
  });

  it("maps an edit and a delete to the bridge's copy in the other conversation", async () => {
    const original = ana.say(rooms.general, "a typo here");
    const copy = await posted(rooms.random, "[nctalk] <Ana B> a typo here");
    await queueSettled(rooms.random);
    const from = talk.sent.items.length;
    ana.edit(rooms.general, original, "no typo here");
    const edit = await botAction((a) => a.kind === "edit", from);
    assert.equal(edit.message.id, copy.message.id);
    assert.equal(edit.message.message, "[nctalk] <Ana B> no typo here (edited)");
    assert.equal((await apiMessage((m) => m.text.startsWith("no typo"))).text, "no typo here (edited)");
    ana.delete(rooms.general, original);
    const deleted = await botAction((a) => a.kind === "delete", from);
    assert.equal(deleted.message.id, copy.message.id);
  });

  it("keeps replies: a reply to the bridge's copy replies to the original", async () => {
    const root = ana.say(rooms.general, "who agrees?");
    const copy = await posted(rooms.random, "[nctalk] <Ana B> who agrees?");
    await queueSettled(rooms.random);
    bob.say(rooms.random, "I agree", { replyTo: copy.message.id });
    const reply = await posted(rooms.general, "[nctalk] <bob> I agree");
    assert.equal(reply.body.replyTo, root);
    assert.equal(reply.message.parent?.id, root);
  });

  it("names guests with GuestSuffix and fills in mentions and shared files", async () => {
    talk.guestSays(rooms.general, "Visitor", "hi as a guest");
    assert.equal((await apiMessage((m) => m.text === "hi as a guest")).username, "Visitor (Guest)@nctalk");
    ana.say(rooms.general, "hey {mention-user1}", {
      parameters: { "mention-user1": { type: "user", id: "bob", name: "bob" } },
    });
    await apiMessage((m) => m.text === "hey @bob");
    ana.say(rooms.general, "{file}", {
      parameters: { file: { type: "file", id: "42", name: "notes.txt", link: `${talk.url}/f/42` } },
    });
    await apiMessage((m) => m.text === `${talk.url}/f/42`);
  });

  it("neutralises mass mentions in relayed text", async () => {
    await post(api, { text: "@all look", username: "carol", gateway: "main" });
    await posted(rooms.general, "[api] <carol> @\u200dall look");
  });

  it("waits as a 429 says and then delivers in order", async () => {
    const from = talk.sent.items.length;
    talk.rateLimit(1, { retryAfter: 1, method: "POST", path: new RegExp(`/chat/${rooms.general}$`) });
    await post(api, { text: "limited one", username: "carol", gateway: "main" });
    await post(api, { text: "limited two", username: "carol", gateway: "main" });
    await posted(rooms.general, "[api] <carol> limited two", from);
    assert.ok(
      talk.requests.some((line) => line.startsWith(`POST /ocs/v2.php/apps/spreed/api/v1/chat/${rooms.general} -> 429`)),
    );
    const order = talk.sent.items
      .slice(from)
      .filter((a) => a.room === rooms.general)
      .map((a) => a.message.message);
    assert.deepEqual(order, ["[api] <carol> limited one", "[api] <carol> limited two"]);
  });

  it("after an outage, delivers what was said meanwhile both ways, once", async () => {
    const logFrom = bridge.process.output.length;
    const logs = () => bridge.process.output.slice(logFrom);
    talk.setReachable(false);
    await waitUntil(() => logs().includes("nctalk.cloud disconnected"), {
      timeoutMs: WAIT_MS,
      what: "the bridge to notice the outage",
    });
    await post(api, { text: "while down one", username: "carol", gateway: "main" });
    await post(api, { text: "while down two", username: "carol", gateway: "main" });
    ana.say(rooms.general, "said during the outage");
    const from = talk.sent.items.length;
    const streamFrom = stream.items.length;
    talk.setReachable(true);
    await posted(rooms.general, "[api] <carol> while down two", from);
    const order = talk.sent.items
      .slice(from)
      .filter((a) => a.room === rooms.general)
      .map((a) => a.message.message);
    assert.deepEqual(order, ["[api] <carol> while down one", "[api] <carol> while down two"]);
    await apiMessage((m) => m.text === "said during the outage", streamFrom);
    await posted(rooms.random, "[nctalk] <Ana B> said during the outage");
    await waitUntil(() => logs().includes("nctalk.cloud reconnected"), {
      timeoutMs: WAIT_MS,
      what: "the reconnected log line",
    });
    // A marker after it: everything before it has been relayed, and the outage's message only once.
    ana.say(rooms.general, "after the outage");
    await apiMessage((m) => m.text === "after the outage", streamFrom);
    assert.equal(stream.items.filter((m) => m.text === "said during the outage").length, 1);
  });

  it("made no request the simulator does not know", () => {
    assert.deepEqual(talk.unhandled, []);
  });
});

describe("nctalk account settings", () => {
  const teardown = suiteTeardown();

  it("sends the nick as the display name with SeparateDisplayName", async () => {
    const talk = await startTalkSimulator(teardown);
    const bot = talk.createBot("bridgebot", "bot-app-password");
    const ana = talk.createUser("ana");
    const rooms = { general: talk.createRoom("General", [ana, bot]), random: talk.createRoom("Random", [ana, bot]) };
    const bridge = await startBridgeProcess(bridgeConfig(talk, rooms, "SeparateDisplayName = true"), teardown);
    await post(bridge.url("api.local"), { text: "separate", username: "carol", gateway: "main" });
    const sent = await talk.sent.waitFor((a) => a.room === rooms.general, { timeoutMs: WAIT_MS });
    assert.equal(sent.message.message, "separate");
    assert.equal(sent.body.actorDisplayName, "[api] <carol>");
  });

  it("stops start-up with one line naming the keys when Nextcloud refuses the app password", async () => {
    const talk = await startTalkSimulator(teardown);
    talk.createBot("bridgebot", "another-password");
    const rooms = { general: "abc", random: "def" };
    await assert.rejects(
      startBridgeProcess(bridgeConfig(talk, rooms), teardown),
      /\[nctalk\.cloud\].*Nextcloud refused Login and Password/,
    );
  });

  it("connects to a self-signed server with SkipTLSVerify, and refuses its certificate without it", async () => {
    const talk = await startTalkSimulator(teardown, { tls: true });
    const bot = talk.createBot("bridgebot", "bot-app-password");
    const ana = talk.createUser("ana");
    const rooms = { general: talk.createRoom("General", [ana, bot]), random: talk.createRoom("Random", [ana, bot]) };
    const secure = bridgeConfig(talk, rooms, "SkipTLSVerify = true");
    const { stream } = await startWithApiStream(secure, teardown);
    ana.say(rooms.general, "over tls");
    await stream.waitFor((m) => m.text === "over tls", { timeoutMs: WAIT_MS, what: "the message over TLS" });
    const strict = await startBridgeProcess(secure.replace("SkipTLSVerify = true", ""), teardown);
    await waitUntil(() => /nctalk\.cloud cannot connect.*SkipTLSVerify/.test(strict.process.output), {
      timeoutMs: WAIT_MS,
      what: "the certificate refused with a hint",
    });
  });

  it("logs a conversation it cannot read and still relays the others", async () => {
    const talk = await startTalkSimulator(teardown);
    const bot = talk.createBot("bridgebot", "bot-app-password");
    const ana = talk.createUser("ana");
    const general = talk.createRoom("General", [ana, bot]);
    const { bridge, stream } = await startWithApiStream(
      bridgeConfig(talk, { general, random: "nosuchroom" }),
      teardown,
    );
    await bridge.process.waitForLine("no conversation nosuchroom");
    ana.say(general, "still here");
    await stream.waitFor((m) => m.text === "still here", { timeoutMs: WAIT_MS, what: "the message" });
  });
});
