// The discord account's webhooks against the Discord simulator: with AutoWebhooks each relayed message shows its
// sender's name (RemoteNickFormat) and avatar through the channel's webhook (created once, reused), edits and
// deletes go through the same webhook, replies fall back to the bot, and the webhook's own messages never come back;
// a per-channel WebhookURL from the gateway options is used as is.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type DiscordHuman, type DiscordSimulator, startDiscordSimulator } from "@switchboard/testkit";
import { openStream, post, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";

describe("discord account webhooks", () => {
  const teardown = suiteTeardown();
  let simulator: DiscordSimulator;
  let alice: DiscordHuman;
  let api: string;
  let stream: StreamClient;
  let manualWebhookId: string;

  before(async () => {
    simulator = await startDiscordSimulator(teardown, { channels: ["general", "random", "manual"] });
    alice = simulator.addUser("alice", { nick: "Alice A." });
    const manual = simulator.createWebhook("manual", "made by a person");
    manualWebhookId = manual.webhook.id;
    const bridge = await startBridge(
      `
[discord.test]
Token = "${simulator.token}"
Server = "ID:${simulator.guild.id}"
ApiURL = "${simulator.apiUrl}"
AutoWebhooks = true
RemoteNickFormat = "{NICK} ({PROTOCOL})"
PreserveThreading = true

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "discord.test"
  channel = "general"
  [[gateway.inout]]
  account = "discord.test"
  channel = "random"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"

[[gateway]]
name = "manual"
enable = true
  [[gateway.inout]]
  account = "discord.test"
  channel = "manual"
  [gateway.inout.options]
  WebhookURL = "${manual.url}"
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

  it("sends through one webhook per channel, with the sender's formatted name and avatar", async () => {
    await post(api, { text: "via webhook", username: "carol", avatar: "https://img/carol.png", gateway: "main" });
    const sent = await simulator.sent.waitFor((a) => a.channel === "general" && a.message.content === "via webhook");
    assert.equal(sent.via, "webhook");
    assert.equal(sent.message.author.username, "carol (api)");
    assert.equal(sent.message.author.avatar, "https://img/carol.png");
    await post(api, { text: "second", username: "carol", gateway: "main" });
    await simulator.sent.waitFor((a) => a.channel === "general" && a.message.content === "second");
    const generalHooks = [...simulator.world.webhooks.values()].filter(
      (w) => w.channel_id === simulator.channel("general").id,
    );
    assert.equal(generalHooks.length, 1, "one webhook, created once and reused");
    assert.equal(generalHooks[0]?.application_id, simulator.world.bot.id);
  });

  it("edits and deletes through the webhook, and never relays the webhook's own messages", async () => {
    const original = alice.say("general", "before");
    const copy = await simulator.sent.waitFor((a) => a.channel === "random" && a.message.content === "before");
    assert.equal(copy.via, "webhook");
    // Discord refuses webhook names containing "discord": the account breaks the word with a zero-width space.
    assert.equal(copy.message.author.username, "Alice A. (disc\u200bord)");
    alice.edit(original.id, "after");
    const edited = await simulator.sent.waitFor((a) => a.kind === "edit" && a.message.id === copy.message.id);
    assert.equal(edited.via, "webhook");
    assert.equal(edited.message.content, "after");
    alice.delete(original.id);
    const deleted = await simulator.sent.waitFor((a) => a.kind === "delete" && a.message.id === copy.message.id);
    assert.equal(deleted.via, "webhook");
    // The webhook copies in #random were seen by the bot on the gateway but not relayed back to #general.
    const backInGeneral = simulator.sent.items.filter((a) => a.channel === "general" && a.message.content === "before");
    assert.deepEqual(backInGeneral, []);
  });

  it("sends a reply as the bot (webhooks cannot reply), with the nick in the text", async () => {
    const question = alice.say("general", "question?");
    const questionCopy = await simulator.sent.waitFor(
      (a) => a.channel === "random" && a.message.content === "question?",
    );
    alice.say("general", "self-answer", { replyTo: question.id });
    const reply = await simulator.sent.waitFor(
      (a) => a.channel === "random" && a.message.content.endsWith("self-answer"),
    );
    assert.equal(reply.via, "bot");
    assert.equal(reply.message.content, "Alice A. (discord)self-answer");
    assert.equal(reply.message.referenced_message?.id, questionCopy.message.id);
  });

  it("uses a channel's WebhookURL from the gateway options", async () => {
    await post(api, { text: "to the manual channel", username: "dave", gateway: "manual" });
    const sent = await simulator.sent.waitFor((a) => a.channel === "manual");
    assert.equal(sent.via, "webhook");
    assert.equal(sent.message.webhook_id, manualWebhookId);
    assert.equal(sent.message.author.username, "dave (api)");
    assert.deepEqual(simulator.unhandled, []);
  });
});
