// The Discord simulator validated with the real client library, discord.js 14, unmodified: login through
// GET /gateway/bot and the gateway (READY, GUILD_CREATE), messages both ways, replies, edits, deletes, webhooks,
// a 429 surfaced as discord.js's RateLimitError, a bad token refused as Discord refuses it, a dropped connection
// resumed with the missed events replayed, and no request the library makes left unhandled.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Client,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  type Message,
  RateLimitError,
  type TextChannel,
  WebhookClient,
} from "discord.js";
import { Inbox } from "../src/chat/inbox.ts";
import { type DiscordSimulator, startDiscordSimulator, suiteTeardown, waitUntil } from "../src/index.ts";
import type { Teardown } from "../src/process.ts";

const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMembers,
];

async function login(
  simulator: DiscordSimulator,
  teardown: Teardown,
  options: { token?: string; reject429?: boolean; intents?: number[] } = {},
): Promise<{ client: Client; messages: Inbox<Message> }> {
  const client = new Client({
    intents: options.intents ?? INTENTS,
    rest: { api: simulator.apiUrl, ...(options.reject429 ? { rejectOnRateLimit: () => true } : {}) },
  });
  teardown.after(() => client.destroy());
  const messages = new Inbox<Message>();
  client.on(Events.MessageCreate, (message) => messages.push(message));
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(options.token ?? simulator.token);
  await ready;
  return { client, messages };
}

describe("discord simulator with discord.js", () => {
  const teardown = suiteTeardown();

  it("logs in, sees the guild and its channels, and relays messages both ways", async () => {
    const simulator = await startDiscordSimulator(teardown, { channels: ["general", "ops/alerts"] });
    const { client, messages } = await login(simulator, teardown);
    assert.equal(client.user?.username, "bridgebot");
    const guild = client.guilds.cache.get(simulator.guild.id);
    assert.equal(guild?.name, simulator.guild.name);
    const alerts = guild?.channels.cache.find((c) => c.name === "alerts");
    assert.equal(alerts?.parent?.name, "ops");

    const alice = simulator.addUser("alice", { nick: "Alice A." });
    const posted = alice.say("general", `hello <@${simulator.world.bot.id}>`);
    const received = await messages.waitFor((m) => m.id === posted.id);
    assert.equal(received.content, posted.content);
    assert.equal(received.author.username, "alice");
    assert.equal(received.member?.nickname, "Alice A.");
    assert.equal(received.mentions.users.first()?.id, simulator.world.bot.id);

    const channel = client.channels.cache.get(simulator.channel("general").id) as TextChannel;
    const sent = await channel.send({ content: "hi alice", reply: { messageReference: posted.id } });
    const action = await simulator.sent.waitFor((a) => a.kind === "create" && a.message.id === sent.id);
    assert.equal(action.message.content, "hi alice");
    assert.equal(action.message.referenced_message?.id, posted.id);
    assert.equal(sent.reference?.messageId, posted.id);
    // The bot's own message comes back on the gateway, as on Discord.
    await messages.waitFor((m) => m.id === sent.id);

    await sent.edit("hi alice (edited)");
    await simulator.sent.waitFor((a) => a.kind === "edit" && a.message.content === "hi alice (edited)");
    await sent.delete();
    await simulator.sent.waitFor((a) => a.kind === "delete" && a.message.id === sent.id);
    assert.deepEqual(simulator.unhandled, []);
  });

  it("delivers edits and deletes by users as messageUpdate and messageDelete", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const { client } = await login(simulator, teardown);
    const events = new Inbox<string>();
    client.on(Events.MessageUpdate, (_old, updated) => events.push(`update ${updated.id} ${updated.content}`));
    client.on(Events.MessageDelete, (deleted) => events.push(`delete ${deleted.id}`));
    const bob = simulator.addUser("bob");
    const message = bob.say("general", "typo");
    bob.edit(message.id, "fixed");
    await events.waitFor((e) => e === `update ${message.id} fixed`);
    bob.delete(message.id);
    await events.waitFor((e) => e === `delete ${message.id}`);
  });

  it("blanks message content for a bot without the MessageContent intent", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const { messages } = await login(simulator, teardown, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
    });
    const carol = simulator.addUser("carol");
    const posted = carol.say("general", "secret words");
    const received = await messages.waitFor((m) => m.id === posted.id);
    assert.equal(received.content, "");
  });

  it("executes, edits and deletes webhook messages through WebhookClient", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const { webhook } = simulator.createWebhook("general", "relay");
    const hook = new WebhookClient({ id: webhook.id, token: webhook.token }, { rest: { api: simulator.apiUrl } });
    teardown.after(() => hook.destroy());
    const sent = await hook.send({ content: "from a webhook", username: "dave [irc]", avatarURL: "https://x/a.png" });
    const action = await simulator.sent.waitFor((a) => a.via === "webhook" && a.kind === "create");
    assert.equal(action.message.author.username, "dave [irc]");
    assert.equal(action.message.webhook_id, webhook.id);
    await hook.editMessage(sent.id, { content: "edited" });
    await simulator.sent.waitFor((a) => a.via === "webhook" && a.kind === "edit" && a.message.content === "edited");
    await hook.deleteMessage(sent.id);
    await simulator.sent.waitFor((a) => a.via === "webhook" && a.kind === "delete");
    const wrong = new WebhookClient({ id: webhook.id, token: "nope" }, { rest: { api: simulator.apiUrl } });
    teardown.after(() => wrong.destroy());
    await assert.rejects(wrong.send("x"), (error: unknown) => error instanceof DiscordAPIError && error.code === 50027);
  });

  it("answers a rate-limited call with 429, which discord.js reports as a RateLimitError", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const { client } = await login(simulator, teardown, { reject429: true });
    const channel = client.channels.cache.get(simulator.channel("general").id) as TextChannel;
    simulator.rateLimitNext(1, { retryAfter: 0.25 });
    await assert.rejects(channel.send("too fast"), (error: unknown) => {
      assert.ok(error instanceof RateLimitError, String(error));
      assert.ok(error.retryAfter >= 1000, `retryAfter ${error.retryAfter}`); // Retry-After: 1 (whole seconds)
      return true;
    });
    assert.ok(simulator.requests.some((r) => r.endsWith("-> 429")));
  });

  it("refuses a wrong token as Discord does (401 on GET /gateway/bot: TokenInvalid)", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const client = new Client({ intents: INTENTS, rest: { api: simulator.apiUrl } });
    teardown.after(() => client.destroy());
    await assert.rejects(client.login("not-the-token"), (error: Error & { code?: string }) => {
      assert.equal(error.code, "TokenInvalid");
      return true;
    });
  });

  it("resumes after a dropped connection and replays the events sent meanwhile", async () => {
    const simulator = await startDiscordSimulator(teardown);
    const { client, messages } = await login(simulator, teardown);
    const resumed = new Promise<void>((resolve) => client.once(Events.ShardResume, () => resolve()));
    simulator.acceptGateway(false);
    assert.equal(simulator.dropConnections(), 1);
    await waitUntil(() => simulator.gatewaySessions === 0, { what: "the drop" });
    const erin = simulator.addUser("erin");
    const missed = erin.say("general", "said while you were away");
    simulator.acceptGateway(true);
    await resumed;
    await messages.waitFor((m) => m.id === missed.id);
    assert.deepEqual(simulator.unhandled, []);
  });
});
