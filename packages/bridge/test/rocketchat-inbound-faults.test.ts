// The rocketchat account against a Rocket.Chat simulator that misbehaves: realtime frames a server should never send
// (a message that is null or has no ids, a deletion naming nothing, a frame that is not JSON-an-object, a change
// without a collection) are skipped with one log line and the next message is relayed by the same process. And
// property tests of the inbound reading: no throw escapes, and what comes out keeps its types.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startRocketChatSimulator } from "@switchboard/testkit";
import fc from "fast-check";
import { interpret } from "../src/accounts/rocketchat/inbound.ts";
import { readChange, readMessage } from "../src/accounts/rocketchat/message-shape.ts";
import { outboundText } from "../src/accounts/rocketchat/outbound.ts";
import { emptyMessage } from "../src/message.ts";
import { suiteTeardown } from "./helpers.ts";
import { assertBurstSkipped, startInboundRun } from "./inbound-fixture.ts";
import { nearly } from "./nearly.ts";

const RUNS = { numRuns: 500 };

describe("rocketchat inbound faults", () => {
  const teardown = suiteTeardown();

  it("skips malformed realtime frames with one log line and relays the next message", async () => {
    const rc = await startRocketChatSimulator(teardown);
    const bot = rc.createBot("bridgebot", "botpw");
    const ana = rc.createUser("ana");
    const general = rc.createRoom("general", [ana.user]);
    const run = await startInboundRun(teardown, {
      account: `[rocketchat.rc]\nServer = "${rc.url}"\nLogin = "bridgebot"\nPassword = "botpw"`,
      accountId: "rocketchat.rc",
      channel: "#general",
    });
    const changed = (collection: string, fields: unknown) => ({ msg: "changed", collection, id: "x", fields });
    const frames: unknown[] = [
      changed("stream-room-messages", { eventName: general, args: [null] }),
      changed("stream-room-messages", { eventName: general, args: [{ _id: 5, rid: general }] }),
      changed("stream-room-messages", null),
      changed("stream-notify-room", { eventName: `${general}/deleteMessage`, args: [{}] }),
      { msg: "changed", fields: {} },
      [1, 2, 3],
      null,
    ];
    for (const frame of frames) rc.injectFrame(bot._id, frame);
    ana.say("general", "after the faults");

    await assertBurstSkipped(run, { relayed: ["after the faults"], account: /rocketchat\.rc/ });
  });
});

describe("rocketchat inbound reading", () => {
  const message = fc.record(
    {
      _id: nearly(fc.string({ minLength: 1 })),
      rid: nearly(fc.string({ minLength: 1 })),
      msg: nearly(fc.string()),
      u: nearly(fc.record({ _id: nearly(fc.string()), username: nearly(fc.string()) }, { requiredKeys: [] })),
      alias: nearly(fc.string()),
      tmid: nearly(fc.string()),
      t: nearly(fc.constantFrom("uj", "ul", "rm", "room_changed_topic", "au", "")),
      editedAt: nearly(fc.record({ $date: fc.nat() })),
      _updatedAt: nearly(
        fc.oneof(
          fc.record({ $date: fc.nat() }),
          fc.date().map((d) => String(d)),
        ),
      ),
      file: nearly(fc.record({ _id: nearly(fc.string()), name: nearly(fc.string()) })),
      attachments: nearly(fc.array(nearly(fc.record({ title_link: nearly(fc.string()) })), { maxLength: 3 })),
    },
    { requiredKeys: [] },
  );
  const fields = fc.record(
    { eventName: nearly(fc.string()), args: nearly(fc.array(nearly(message), { maxLength: 2 })) },
    { requiredKeys: [] },
  );

  it("reads any realtime change and interprets any message without throwing", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("stream-room-messages", "stream-notify-room", "other"),
        fc.oneof(fields, fc.jsonValue({ maxDepth: 3 })),
        fc.boolean(),
        (collection, raw, editDisable) => {
          const change = readChange(collection, raw);
          if (typeof change === "string" || change.kind !== "message") return;
          const inbound = interpret(change.message, "https://chat.example.org", editDisable);
          if (inbound.kind === "text") {
            assert.equal(typeof inbound.text, "string");
            assert.equal(typeof inbound.username, "string");
            assert.equal(typeof inbound.parentId, "string");
          }
        },
      ),
      RUNS,
    );
    fc.assert(
      fc.property(message, (raw) => {
        const read = readMessage(raw);
        if (typeof read !== "string") assert.ok(Number.isFinite(read.updatedAt));
      }),
      RUNS,
    );
  });

  it("never sends more than 5,000 characters, nor a notifying @all or @here", () => {
    const settings = { PrefixMessagesWithNick: true, MessageClipped: "<clipped message>", AllowMassMentions: false };
    fc.assert(
      fc.property(fc.string({ maxLength: 6000 }), fc.string({ maxLength: 40 }), (text, username) => {
        const delivery = { message: emptyMessage({ text, username }), channel: "#c", gateway: "g", options: {} };
        const out = outboundText(delivery, settings);
        assert.ok(out.length <= 5000);
        assert.doesNotMatch(out, /(^|[^\w@.-])@(all|here)(?![\w-])/iu);
      }),
      { numRuns: 200 },
    );
  });
});
