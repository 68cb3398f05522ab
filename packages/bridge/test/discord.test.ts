// The discord account through discord.js against the Discord simulator, with an api account on the same gateway and
// two Discord channels (so an edit, a delete and a reply on one reach the bridge's copies on the other through the id
// cache): text both ways with RemoteNickFormat, mentions and custom emoji made readable, actions, edits, deletes,
// replies, and the bot's own messages never coming back.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type DiscordHuman, type DiscordSimulator, startDiscordSimulator } from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { openStream, post, type RunningBridge, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

export function discordConfig(simulator: DiscordSimulator, extra = "", channels = ["general", "random"]): string {
  return `
[discord.test]
Token = "${simulator.token}"
Server = "${simulator.guild.name}"
ApiURL = "${simulator.apiUrl}"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
${extra}

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}@{PROTOCOL}"

[[gateway]]
name = "main"
enable = true
${channels.map((channel) => `  [[gateway.inout]]\n  account = "discord.test"\n  channel = "${channel}"\n`).join("")}
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

/** The first message on an api stream (after `from`) that matches, waited for with a bound. */
export async function apiMessage(stream: StreamClient, matches: (m: Message) => boolean, from = 0): Promise<Message> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = stream.items.slice(from).find(matches);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`no matching api message; got ${JSON.stringify(stream.items.slice(-5))}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("discord account with the Discord simulator", () => {
  const teardown = suiteTeardown();
  let simulator: DiscordSimulator;
  let bridge: RunningBridge;
  let api: string;
  let stream: StreamClient;
  let alice: DiscordHuman;
  let bob: DiscordHuman;

  before(async () => {
    simulator = await startDiscordSimulator(teardown, { channels: ["general", "random"] });
    alice = simulator.addUser("alice", { nick: "Alice A." });
    bob = simulator.addUser("bob", { globalName: "Bob B" });
    bridge = await startBridge(discordConfig(simulator, 'EditSuffix = " (edited)"'), teardown);
    api = bridge.url("api.local");
    stream = await openStream(api);
    teardown.after(() => stream.close());
  });

  it("relays a Discord message to the api with the api's RemoteNickFormat, mentions and emoji readable", async () => {
    const said = alice.say("general", `hi <@${bob.id}> <:party:123456789> in <#${simulator.channel("random").id}>`, {
      files: [{ name: "cat.png", data: Buffer.from("a picture of a cat") }],
    });
    const got = await apiMessage(stream, (m) => m.id === "" && m.text.startsWith("hi @Bob B"));
    // The api gets the attachment as a link in Extra.file.
    assert.equal(got.text, "hi @Bob B :party: in #random");
    const file = got.Extra?.["file"]?.[0] as { Name: string; URL: string; Size: number };
    assert.deepEqual([file.Name, file.URL, file.Size], ["cat.png", said.attachments[0]?.url, 18]);
    assert.equal(got.username, "Alice A.@discord");
    assert.equal(got.channel, "general");
    assert.equal(got.account, "discord.test");
    assert.equal(got.protocol, "discord");
    assert.equal(got.userid, alice.id);
    assert.match(got.avatar, new RegExp(`/avatars/${alice.id}/`));
    // The other Discord channel gets it from the bot, with Discord's RemoteNickFormat.
    const copy = await simulator.sent.waitFor((a) => a.channel === "random" && a.message.content.includes("hi @Bob"));
    assert.equal(copy.message.content, "[discord] <Alice A.> hi @Bob B :party: in #random");
    assert.equal(copy.via, "bot");
    // The attachment was downloaded from the CDN and uploaded again with the copy.
    const [upload] = copy.message.attachments;
    assert.equal(upload?.filename, "cat.png");
    assert.equal(simulator.attachment(upload?.url ?? "")?.toString(), "a picture of a cat");
  });

  it("relays an api message to Discord with Discord's RemoteNickFormat, @name of a member as a mention", async () => {
    const answer = await post(api, { text: "hello @alice from the api", username: "carol", gateway: "main" });
    assert.equal(answer.status, 200);
    const sent = await simulator.sent.waitFor((a) => a.channel === "general" && a.message.content.includes("carol"));
    assert.equal(sent.message.content, `[api] <carol> hello <@${alice.id}> from the api`);
    assert.equal(sent.message.author.id, simulator.world.bot.id);
    // The bot's own message comes back on the gateway and must not be relayed again.
    await simulator.sent.waitFor((a) => a.channel === "random" && a.message.content.includes("<carol> hello"));
    const echoes = stream.items.filter((m) => m.text.includes("hello") && m.account === "discord.test");
    assert.deepEqual(echoes, []);
  });

  it("relays actions both ways (Discord's /me is italics)", async () => {
    bob.say("general", "_waves_");
    const got = await apiMessage(stream, (m) => m.event === "user_action" && m.text === "waves");
    assert.equal(got.username, "Bob B@discord");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    const sent = await simulator.sent.waitFor(
      (a) => a.channel === "general" && a.message.content.includes("waves back"),
    );
    assert.equal(sent.message.content, "[api] <carol> _waves back_");
  });

  it("edits and deletes the bridge's copy when a Discord user edits or deletes, through the id cache", async () => {
    const original = alice.say("general", "typo here");
    const copy = await simulator.sent.waitFor(
      (a) => a.kind === "create" && a.channel === "random" && a.message.content.endsWith("typo here"),
    );
    alice.edit(original.id, "fixed here");
    const edited = await simulator.sent.waitFor((a) => a.kind === "edit" && a.message.id === copy.message.id);
    assert.equal(edited.message.content, "[discord] <Alice A.> fixed here (edited)");
    // The api has no ids: the edit reaches it as a new message, with EditSuffix.
    await apiMessage(stream, (m) => m.text === "fixed here (edited)");
    alice.delete(original.id);
    const deleted = await simulator.sent.waitFor((a) => a.kind === "delete" && a.message.id === copy.message.id);
    assert.equal(deleted.channel, "random");
  });

  it("keeps replies as replies on the other channel (PreserveThreading)", async () => {
    const question = alice.say("general", "question?");
    const questionCopy = await simulator.sent.waitFor(
      (a) => a.kind === "create" && a.channel === "random" && a.message.content.endsWith("question?"),
    );
    bob.say("general", "answer!", { replyTo: question.id });
    const answerCopy = await simulator.sent.waitFor(
      (a) => a.kind === "create" && a.channel === "random" && a.message.content.endsWith("answer!"),
    );
    assert.equal(answerCopy.message.referenced_message?.id, questionCopy.message.id);
    const got = await apiMessage(stream, (m) => m.text === "answer!");
    assert.equal(got.parent_id, "msg-parent-not-found"); // the api has no copy of the question to point at
  });

  it("leaves no request unhandled by the simulator", () => {
    assert.deepEqual(simulator.unhandled, []);
  });
});

describe("discord members joining and leaving the server", () => {
  const teardown = suiteTeardown();

  it("relays them once per gateway as join_leave, by server nickname, to a destination with ShowJoinPart", async () => {
    const simulator = await startDiscordSimulator(teardown, { channels: ["general", "random"] });
    const config = discordConfig(simulator).replace("[api.local]", "[api.local]\nShowJoinPart = true");
    const bridge = await startBridge(config, teardown);
    const stream = await openStream(bridge.url("api.local"));
    teardown.after(() => stream.close());
    const carol = simulator.addUser("carol", { nick: "Carol C." });
    const joined = await apiMessage(stream, (m) => m.event === "join_leave");
    assert.equal(joined.text, "Carol C. joins");
    assert.equal(joined.username, "system@discord");
    assert.equal(joined.gateway, "main");
    carol.leave();
    const left = await apiMessage(stream, (m) => m.text === "Carol C. leaves");
    assert.equal(left.event, "join_leave");
    // Both channels of the account are in the one gateway: each event came once.
    assert.equal(stream.items.filter((m) => m.event === "join_leave").length, 2);
  });
});
