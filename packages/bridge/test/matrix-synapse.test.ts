// The matrix account against a real Synapse (Debian sid, in a chroot: see testkit synapse-root.ts), with two humans
// talking through the plain Client-Server API: login with a password and with a token, display names, text and
// actions both ways, the initial sync's backlog not relayed, edits, redactions and replies mapped room to room through
// the id cache, and the homeserver's own refusal of a bad token as a start-up error. When the chroot cannot be built
// here (not root, no mmdebstrap, the sid archive failing), the suite is skipped with the reason.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type SynapseServer,
  type SynapseUser,
  startSynapse,
  synapseRoot,
  synapseUser,
  type TimelineEvent,
  waitUntil,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { openStream, post, type RunningBridge, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 20_000;
const prepared = await synapseRoot();
const skip = "skip" in prepared ? prepared.skip : false;
if (skip) console.log(`# matrix-synapse: skipped: ${skip}`);

function bridgeConfig(url: string, account: string, auth: string): string {
  return `
[matrix.${account}]
Server = "${url}"
${auth}
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}@{PROTOCOL}"

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "matrix.${account}"
  channel = "#main:localhost"
  [[gateway.inout]]
  account = "matrix.${account}"
  channel = "#side:localhost"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

describe("matrix account with a real Synapse", { skip }, () => {
  const teardown = suiteTeardown();
  let synapse: SynapseServer;
  let alice: SynapseUser;
  let bob: SynapseUser;
  let bot: { userId: string; accessToken: string };
  let main: string;
  let side: string;
  let bridge: RunningBridge;
  let api: string;
  let stream: StreamClient;

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const bodyOf = (e: TimelineEvent) => String(e.content.body ?? "");
  const fromBot = (matches: (e: TimelineEvent) => boolean) => (e: TimelineEvent) =>
    e.sender === bot.userId && matches(e);

  before(async () => {
    if (!("root" in prepared)) return;
    synapse = await startSynapse(teardown, prepared.root);
    const human = async (name: string, displayName: string) => {
      const account = await synapse.register(name, `${name}-password`);
      const user = synapseUser(synapse.url, account.userId, account.accessToken);
      await user.setDisplayName(displayName);
      return user;
    };
    alice = await human("alice", "Alice");
    bob = await human("bob", "Bob");
    bot = await synapse.register("bridgebot", "bridgebot-password");
    main = await alice.createRoom("main");
    side = await alice.createRoom("side");
    await bob.join(side);
    await alice.say(main, "history before the bridge");
    const config = bridgeConfig(synapse.url, "hs", 'Login = "bridgebot"\nPassword = "bridgebot-password"');
    bridge = await startBridge(config, teardown);
    api = bridge.url("api.local");
    stream = await openStream(api);
    teardown.after(() => stream.close());
    // The bot joined both rooms by alias when its membership shows in each.
    for (const room of [main, side]) {
      await alice.waitForEvent(room, (e) => e.type === "m.room.member" && e.sender === bot.userId, WAIT_MS);
    }
  });

  it("relays a message to the api and the other room, with the sender's display name", async () => {
    const id = await alice.say(main, "hello from synapse");
    const got = await apiMessage((m) => m.text === "hello from synapse");
    assert.equal(got.username, "Alice@matrix");
    assert.equal(got.userid, alice.userId);
    assert.equal(got.channel, "#main:localhost");
    const copy = await bob.waitForEvent(
      side,
      fromBot((e) => bodyOf(e).endsWith("hello from synapse")),
      WAIT_MS,
    );
    assert.equal(copy.content.body, "[matrix] <Alice> hello from synapse");
    assert.notEqual(copy.event_id, id);
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("posts an api message as m.text with HTML and does not relay its own event back", async () => {
    const from = stream.items.length;
    await post(api, { text: "hello **from** the api", username: "carol", gateway: "main" });
    const inMain = await alice.waitForEvent(
      main,
      fromBot((e) => bodyOf(e).includes("from** the api")),
      WAIT_MS,
    );
    assert.equal(inMain.content.body, "[api] <carol> hello **from** the api");
    assert.equal(inMain.content.format, "org.matrix.custom.html");
    assert.equal(inMain.content.formatted_body, "[api] &lt;carol&gt; hello <strong>from</strong> the api");
    await alice.say(main, "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays actions both ways as m.emote / user_action", async () => {
    await alice.emote(main, "waves");
    assert.equal((await apiMessage((m) => m.text === "waves")).event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    const emote = await alice.waitForEvent(
      main,
      fromBot((e) => bodyOf(e).includes("waves back")),
      WAIT_MS,
    );
    assert.equal(emote.content.msgtype, "m.emote");
  });

  it("maps an edit and a redaction to the bot's copy in the other room", async () => {
    const original = await alice.say(main, "a typo here");
    const copy = await bob.waitForEvent(
      side,
      fromBot((e) => bodyOf(e).endsWith("a typo here")),
      WAIT_MS,
    );
    await alice.edit(main, original, "no typo here");
    const edit = await bob.waitForEvent(
      side,
      fromBot((e) => bodyOf(e).includes("no typo here")),
      WAIT_MS,
    );
    assert.deepEqual(edit.content["m.relates_to"], { rel_type: "m.replace", event_id: copy.event_id });
    assert.equal((edit.content["m.new_content"] as { body: string }).body, "[matrix] <Alice> no typo here");
    await apiMessage((m) => m.text === "no typo here");

    await alice.redact(main, original);
    const redaction = await bob.waitForEvent(
      side,
      fromBot((e) => e.type === "m.room.redaction"),
      WAIT_MS,
    );
    assert.equal(redaction.redacts, copy.event_id);
    // Synapse itself has emptied the redacted copy.
    const emptied = (await bob.timeline(side)).find((e) => e.event_id === copy.event_id);
    assert.deepEqual(emptied?.content, {});
  });

  it("maps a reply to the bot's copy back to the original", async () => {
    const original = await alice.say(main, "who agrees?");
    const copy = await bob.waitForEvent(
      side,
      fromBot((e) => bodyOf(e).endsWith("who agrees?")),
      WAIT_MS,
    );
    await bob.reply(side, copy.event_id, "I agree");
    const reply = await alice.waitForEvent(
      main,
      fromBot((e) => bodyOf(e).endsWith("I agree")),
      WAIT_MS,
    );
    assert.equal(reply.content.body, "[matrix] <Bob> I agree");
    assert.deepEqual(reply.content["m.relates_to"], { "m.in_reply_to": { event_id: original } });
  });

  it("logs in with an access token as well, and relays with it", async () => {
    const viaToken = await startBridge(
      `[matrix.tok]\nServer = "${synapse.url}"\nToken = "${bot.accessToken}"\nMxID = "${bot.userId}"\n` +
        '[api.tok]\nBindAddress = "127.0.0.1:0"\n' +
        '[[gateway]]\nname = "tok"\nenable = true\n' +
        '[[gateway.inout]]\naccount = "matrix.tok"\nchannel = "#side:localhost"\n' +
        '[[gateway.inout]]\naccount = "api.tok"\nchannel = "api"\n',
      teardown,
    );
    const tokenStream = await openStream(viaToken.url("api.tok"));
    teardown.after(() => tokenStream.close());
    await bob.say(side, "seen through the token login");
    await waitUntil(() => tokenStream.items.find((m) => m.text === "seen through the token login"), {
      timeoutMs: WAIT_MS,
      what: "the token account's api message",
    });
  });

  it("fails start-up with one error naming the account when Synapse refuses the token", async () => {
    await assert.rejects(
      startBridge(bridgeConfig(synapse.url, "bad", 'Token = "syt_not_a_token"'), teardown),
      /\[matrix\.bad\].*Token.*M_UNKNOWN_TOKEN/,
    );
  });
});
