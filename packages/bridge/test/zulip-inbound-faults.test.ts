// The zulip account against a Zulip simulator that misbehaves: events a server should never send (a message that is
// null or has no sender, an edit without a message id, a delete naming nothing, an event without a type) are skipped
// with one log line and the next message is relayed by the same process. And property tests of the inbound reading:
// arbitrary JSON and nearly-right events never make a throw escape, and what comes out keeps its types.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startZulipSimulator } from "@switchboard/testkit";
import fc from "fast-check";
import { absoluteUrl, inboundText } from "../src/accounts/zulip/inbound.ts";
import { readEvent, readMessage } from "../src/accounts/zulip/message-shape.ts";
import { outboundText } from "../src/accounts/zulip/outbound.ts";
import { emptyMessage } from "../src/message.ts";
import { suiteTeardown } from "./helpers.ts";
import { assertBurstSkipped, startInboundRun } from "./inbound-fixture.ts";
import { nearly } from "./nearly.ts";

const RUNS = { numRuns: 500 };

describe("zulip inbound faults", () => {
  const teardown = suiteTeardown();

  it("skips malformed events with one log line and relays the next message", async () => {
    const zulip = await startZulipSimulator(teardown);
    const bot = zulip.createBot("bridge-bot@example.com", "Bridge");
    const ana = zulip.createUser("ana@example.com", "Ana");
    zulip.createStream("general", [ana.user]);
    const run = await startInboundRun(teardown, {
      account: `[zulip.zu]\nServer = "${zulip.url}"\nLogin = "${bot.email}"\nToken = "${bot.api_key}"`,
      accountId: "zulip.zu",
      channel: "general/topic:chat",
    });
    const events: Record<string, unknown>[] = [
      { type: "message", message: null },
      { type: "message", message: { id: "7", content: "no sender" } },
      { type: "message", message: [1, 2] },
      { type: "update_message", message_id: "x", content: 5 },
      { type: "delete_message", message_ids: "all" },
      { type: null, message: {} },
      { type: "message", message: { id: 1, sender_id: 2, stream_id: 3, display_recipient: { no: 1 } } },
    ];
    for (const event of events) zulip.injectEvent(bot.user_id, event);
    ana.say("general", "chat", "after the faults");

    await assertBurstSkipped(run, { relayed: ["after the faults"], account: /zulip\.zu/, what: /a Zulip event/ });
  });
});

describe("zulip inbound reading", () => {
  const message = fc.record(
    {
      id: nearly(fc.nat()),
      sender_id: nearly(fc.nat()),
      sender_email: nearly(fc.emailAddress()),
      sender_full_name: nearly(fc.string()),
      avatar_url: nearly(fc.oneof(fc.webUrl(), fc.constant("/avatar/1"))),
      content: nearly(fc.string()),
      display_recipient: nearly(fc.string()),
      stream_id: nearly(fc.nat()),
      subject: nearly(fc.string()),
      type: nearly(fc.constantFrom("stream", "private")),
    },
    { requiredKeys: [] },
  );
  const event = fc.record(
    {
      id: nearly(fc.nat()),
      type: nearly(fc.constantFrom("message", "update_message", "delete_message", "heartbeat", "toString")),
      message: nearly(message),
      message_id: nearly(fc.nat()),
      message_ids: nearly(fc.array(nearly(fc.nat()), { maxLength: 3 })),
      content: nearly(fc.string()),
      user_id: nearly(fc.nat()),
      stream_id: nearly(fc.nat()),
      topic: nearly(fc.string()),
      rendering_only: nearly(fc.boolean()),
    },
    { requiredKeys: [] },
  );

  it("reads any event without throwing; what it reads has the types the account relies on", () => {
    fc.assert(
      fc.property(fc.oneof(event, fc.jsonValue({ maxDepth: 3 })), (raw) => {
        const read = readEvent(raw);
        if (typeof read === "string") return;
        assert.ok(Number.isSafeInteger(read.id));
        if (read.type === "message") {
          assert.equal(typeof read.message.content, "string");
          assert.equal(typeof read.message.stream, "string");
          assert.equal(typeof read.message.topic, "string");
        }
        if (read.type === "delete") assert.ok(read.messageIds.every((id) => Number.isSafeInteger(id)));
      }),
      RUNS,
    );
  });

  it("turns any message's content into text without throwing", () => {
    fc.assert(
      fc.property(message, fc.string(), (raw, url) => {
        const read = readMessage(raw);
        if (read === undefined || typeof read === "string") return;
        const { text, action } = inboundText(read.content, url);
        assert.equal(typeof text, "string");
        assert.equal(typeof action, "boolean");
        assert.equal(typeof absoluteUrl(read.avatarUrl, url), "string");
      }),
      RUNS,
    );
  });

  it("never sends more than Zulip's 10,000 characters, nor a notifying mass mention", () => {
    const settings = { MessageClipped: "<clipped message>", AllowMassMentions: false };
    fc.assert(
      fc.property(fc.string({ maxLength: 11_000 }), fc.string({ maxLength: 40 }), (text, username) => {
        const delivery = { message: emptyMessage({ text, username }), channel: "s", gateway: "g", options: {} };
        const out = outboundText(delivery, settings);
        assert.ok(out.length <= 10_000);
        assert.doesNotMatch(out, /(^|[^\w@.-])@_?\*\*(all|everyone|stream|channel|topic)\*\*/i);
      }),
      { numRuns: 200 },
    );
  });
});
