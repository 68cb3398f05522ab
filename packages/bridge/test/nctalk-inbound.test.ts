// The nctalk account's reading of what Talk sends. Property-based: arbitrary JSON and nearly-right messages (each
// field of its type or anything else) fed to readTalkMessage and interpret never throw, and what comes out is a
// message only for something that was a comment of someone else. Through the real bin: messages a server should
// never send (no id, a null, text that is not a string, a parent that is a number) are skipped with one log line,
// and the next message is relayed by the same process.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTalkSimulator } from "@switchboard/testkit";
import fc from "fast-check";
import { interpret } from "../src/accounts/nctalk/inbound.ts";
import { readTalkMessage } from "../src/accounts/nctalk/message-shape.ts";
import { suiteTeardown } from "./helpers.ts";
import { assertBurstSkipped, startInboundRun } from "./inbound-fixture.ts";
import { nearly } from "./nearly.ts";

/** The field's right type, or any JSON in its place (a misbehaving server's version of it). */
const richObject = fc.record(
  {
    type: nearly(fc.constantFrom("user", "guest", "file", "call", "highlight")),
    name: nearly(fc.string()),
    link: nearly(fc.webUrl()),
  },
  { requiredKeys: [] },
);
const baseMessage = fc.record(
  {
    id: nearly(fc.integer({ min: -2, max: 1000 })),
    actorType: nearly(fc.constantFrom("users", "guests", "bots", "bridged")),
    actorId: nearly(fc.constantFrom("ana", "bridgebot", "guest-1", "")),
    actorDisplayName: nearly(fc.string()),
    message: nearly(fc.oneof(fc.string(), fc.constant("{mention-user1} {file}"), fc.constant("*waves*"))),
    messageParameters: nearly(fc.dictionary(fc.constantFrom("mention-user1", "file", "actor"), nearly(richObject))),
    systemMessage: nearly(fc.constantFrom("", "message_deleted", "message_edited", "user_added")),
    messageType: nearly(fc.constantFrom("comment", "comment_deleted", "system", "command")),
  },
  { requiredKeys: [] },
);
const message = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.tuple(baseMessage, nearly(baseMessage)).map(([m, parent]) => ({ ...m, parent })),
);

describe("nctalk inbound reading", () => {
  it("never throws, and relays only comments of others", () => {
    fc.assert(
      fc.property(message, fc.boolean(), (raw, editDisable) => {
        const read = readTalkMessage(raw);
        if (typeof read === "string") return;
        const inbound = interpret(read, {
          ownUserId: "bridgebot",
          guestSuffix: " (Guest)",
          editDisable,
          postedByUs: () => false,
        });
        if (inbound.kind === "ignore") return;
        if (inbound.kind === "delete") {
          assert.equal(read.systemMessage, "message_deleted");
          assert.match(inbound.id, /^\d+$/);
          return;
        }
        assert.equal(typeof inbound.text, "string");
        assert.notEqual(inbound.text.trim(), "");
        assert.match(inbound.id, /^\d+$/);
        const author = inbound.edited ? read.parent : read;
        assert.ok(author !== undefined);
        assert.ok(!(author.actorType === "users" && author.actorId === "bridgebot"), "never the bridge's own");
        if (inbound.edited) assert.ok(!editDisable);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("nctalk inbound faults through the bin", () => {
  const teardown = suiteTeardown();

  it("skips malformed messages with one log line and relays the next message", async () => {
    const talk = await startTalkSimulator(teardown);
    const bot = talk.createBot("bridgebot", "bot-app-password");
    const ana = talk.createUser("ana");
    const room = talk.createRoom("General", [ana, bot]);
    const run = await startInboundRun(teardown, {
      account: `[nctalk.cloud]\nServer = "${talk.url}"\nLogin = "bridgebot"\nPassword = "bot-app-password"\nRemoteNickFormat = "<{NICK}> "`,
      accountId: "nctalk.cloud",
      channel: room,
    });
    const faults: Record<string, unknown>[] = [
      { actorType: "users", actorId: "ana", message: "no id" },
      { id: null, message: null },
      { id: "7", actorType: "users", actorId: "ana", message: "id as text" },
      { id: 10_000, actorType: "users", actorId: "ana", message: ["not", "text"] },
      { id: 10_001, actorType: 5, actorId: { who: "ana" }, message: "bad actor" },
    ];
    for (const fault of faults) talk.injectMessage(room, fault);
    // A comment whose parent is a number: still a message (the parent is dropped).
    talk.injectMessage(room, {
      id: 10_002,
      actorType: "users",
      actorId: "ana",
      actorDisplayName: "ana",
      message: "odd parent",
      parent: 3,
      messageType: "comment",
      systemMessage: "",
    });
    ana.say(room, "after the faults");

    await assertBurstSkipped(run, {
      relayed: ["odd parent", "after the faults"],
      account: /nctalk\.cloud/,
      what: /a Talk message/,
    });
  });
});
