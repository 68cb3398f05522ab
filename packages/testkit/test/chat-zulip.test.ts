// The Zulip simulator, validated with Zulip's own JavaScript client (zulip-js, unmodified, multipart bodies): it
// reads the bot's profile, finds a stream, subscribes, registers an event queue and long-polls it for what humans
// post, edit and delete, sends, edits and deletes messages, reads history with an anchor and a narrow, and gets
// Zulip's errors (INVALID_API_KEY, BAD_EVENT_QUEUE_ID, RATE_LIMIT_HIT with retry-after) as their JSON.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import zulipInit from "zulip-js";
import { startZulipSimulator, suiteTeardown } from "../src/index.ts";

const teardown = suiteTeardown();

describe("Zulip simulator through zulip-js", () => {
  it("answers zulip-js's REST calls as Zulip does", async () => {
    const zulip = await startZulipSimulator(teardown);
    const bot = zulip.createBot("bridge-bot@example.com", "Bridge");
    const ana = zulip.createUser("ana@example.com", "Ana B");
    zulip.createStream("general", [ana.user]);
    const client = await zulipInit({ username: bot.email, apiKey: bot.api_key, realm: zulip.url });

    const me = await client.users.me.getProfile();
    assert.equal(me.result, "success");
    assert.equal(me.user_id, bot.user_id);
    assert.equal(
      (await client.streams.getStreamId("general")).stream_id,
      zulip.world.streamByName("general")?.stream_id,
    );
    const subscribed = await client.callEndpoint("/users/me/subscriptions", "POST", {
      subscriptions: JSON.stringify([{ name: "general" }]),
    });
    assert.deepEqual(subscribed.subscribed, { [bot.email]: ["general"] });

    const sent = await client.messages.send({ type: "stream", to: "general", topic: "bridge", content: "hi" });
    assert.equal(sent.result, "success");
    const id = sent.id as number;
    assert.equal((await client.messages.update({ message_id: id, content: "hi there" })).result, "success");
    const fetched = await client.messages.getById({ message_id: id });
    assert.equal((fetched.message as { content: string }).content, "hi there");
    const said = ana.say("general", "bridge", "later");
    const history = await client.messages.retrieve({
      anchor: id,
      include_anchor: false,
      num_before: 0,
      num_after: 10,
      narrow: [{ operator: "stream", operand: "general" }],
    });
    assert.deepEqual(
      (history.messages as { id: number }[]).map((m) => m.id),
      [said],
    );
    assert.equal((await client.messages.deleteById({ message_id: id })).result, "success");
    assert.deepEqual(
      zulip.sent.items.map((a) => a.kind),
      ["post", "edit", "delete"],
    );
    assert.deepEqual(zulip.unhandled, []);
  });

  it("delivers messages, edits and deletes through a long-polled event queue", async () => {
    const zulip = await startZulipSimulator(teardown);
    const bot = zulip.createBot("bridge-bot@example.com", "Bridge");
    const ana = zulip.createUser("ana@example.com", "Ana B");
    zulip.createStream("general", [ana.user, bot]);
    const client = await zulipInit({ username: bot.email, apiKey: bot.api_key, realm: zulip.url });
    const queue = await client.queues.register({ event_types: ["message", "update_message", "delete_message"] });
    assert.equal(queue.last_event_id, -1);
    const queueId = queue.queue_id as string;

    const poll = client.events.retrieve({ queue_id: queueId, last_event_id: -1 });
    const id = ana.say("general", "topic one", "hello");
    const first = (await poll).events as { id: number; type: string; message: { content: string; subject: string } }[];
    assert.equal(first[0]?.type, "message");
    assert.equal(first[0]?.message.content, "hello");
    assert.equal(first[0]?.message.subject, "topic one");
    ana.edit(id, "hello again");
    ana.delete(id);
    const rest = (await client.events.retrieve({ queue_id: queueId, last_event_id: first[0]?.id })).events as Record<
      string,
      unknown
    >[];
    assert.deepEqual(
      rest.map((e) => e.type),
      ["update_message", "delete_message"],
    );
    assert.equal(rest[0]?.content, "hello again");
    assert.equal(rest[1]?.message_id, id);

    zulip.expireQueues();
    const gone = await client.events.retrieve({ queue_id: queueId, last_event_id: 1 });
    assert.equal(gone.result, "error");
    assert.equal(gone.code, "BAD_EVENT_QUEUE_ID");
  });

  it("answers refused keys and rate limits with Zulip's errors", async () => {
    const zulip = await startZulipSimulator(teardown);
    const bot = zulip.createBot("bridge-bot@example.com", "Bridge");
    const wrong = await zulipInit({ username: bot.email, apiKey: "wrong", realm: zulip.url });
    const refused = await wrong.users.me.getProfile();
    assert.equal(refused.result, "error");
    assert.equal(refused.code, "INVALID_API_KEY");
    const client = await zulipInit({ username: bot.email, apiKey: bot.api_key, realm: zulip.url });
    zulip.rateLimit(1, { retryAfter: 2 });
    const limited = await client.users.me.getProfile();
    assert.equal(limited.code, "RATE_LIMIT_HIT");
    assert.equal(limited["retry-after"], 2);
    assert.ok(zulip.requests.includes("GET /api/v1/users/me -> 429"));
  });
});
