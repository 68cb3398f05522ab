// The msteams account's reading of what Graph sends. Property-based: arbitrary JSON and nearly-right chatMessages
// (each field of its type or anything else) fed to readTeamsMessage and interpret never throw, and a message comes
// out only for someone else's message made or edited since the last seen time; htmlToText never throws and leaves
// no tag behind. Through the real bin: messages a server should never list (no id, a null body, a time that is not
// one, a thread that is a number) are skipped with one log line, and the next message is relayed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTeamsSimulator } from "@switchboard/testkit";
import fc from "fast-check";
import { htmlToText } from "../src/accounts/msteams/html.ts";
import { interpret } from "../src/accounts/msteams/inbound.ts";
import { readTeamsMessage } from "../src/accounts/msteams/message-shape.ts";
import { suiteTeardown } from "./helpers.ts";
import { assertBurstSkipped, startInboundRun } from "./inbound-fixture.ts";
import { nearly } from "./nearly.ts";

const time = fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }).map((ms) => new Date(ms).toISOString());
const user = fc.record(
  { id: nearly(fc.constantFrom("me", "ana", "")), displayName: nearly(fc.string()) },
  { requiredKeys: [] },
);
const chatMessage = fc.record(
  {
    id: nearly(fc.constantFrom("1700000000001", "17", "a/b", "")),
    replyToId: nearly(fc.constantFrom(null, "1700000000000")),
    messageType: nearly(fc.constantFrom("message", "systemEventMessage")),
    createdDateTime: nearly(time),
    lastModifiedDateTime: nearly(time),
    lastEditedDateTime: nearly(fc.option(time)),
    deletedDateTime: nearly(fc.option(time)),
    from: nearly(fc.record({ user: nearly(user), application: nearly(user) }, { requiredKeys: [] })),
    body: nearly(
      fc.record(
        { contentType: nearly(fc.constantFrom("html", "text")), content: nearly(fc.string()) },
        { requiredKeys: [] },
      ),
    ),
    attachments: nearly(fc.array(nearly(fc.record({ contentUrl: nearly(fc.webUrl()) })), { maxLength: 2 })),
  },
  { requiredKeys: [] },
);

describe("msteams inbound reading", () => {
  it("never throws, and relays only others' messages changed since the last seen time", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue({ maxDepth: 4 }), chatMessage),
        fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }),
        fc.boolean(),
        fc.boolean(),
        (raw, since, known, editDisable) => {
          const read = readTeamsMessage(raw);
          if (typeof read === "string") return;
          const inbound = interpret(read, since, known, { ownUserId: "me", editDisable, postedByUs: () => false });
          if (inbound.kind === "ignore") return;
          assert.notEqual(read.fromUserId, "me");
          assert.equal(read.messageType, "message");
          if (inbound.kind === "delete") {
            assert.ok(read.deleted);
            return;
          }
          assert.notEqual(inbound.text.trim(), "");
          assert.ok(read.created >= since || (read.edited ?? 0) >= since);
          if (inbound.edited) assert.ok(!editDisable);
          else assert.ok(!known);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("turns any HTML into text without tags", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom(
              "<p>",
              "</p>",
              "<br>",
              "<b>",
              "</b>",
              '<at id="0">',
              "</at>",
              '<a href="https://x">',
              "</a>",
              "&amp;",
              "&#x1F600;",
              "&#99999999;",
            ),
          ),
          { maxLength: 20 },
        ),
        (parts) => {
          const text = htmlToText(parts.join(""));
          assert.equal(typeof text, "string");
          assert.doesNotMatch(text, /<(p|br|b|at|a)\b[^>]*>/i);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("msteams inbound faults through the bin", () => {
  const teardown = suiteTeardown();

  it("skips malformed messages with one log line and relays the next message", async () => {
    const teams = await startTeamsSimulator(teardown);
    const bridgeUser = teams.createBridgeUser("Bridge");
    teams.identity.onDeviceCode = (code) => teams.identity.approve(code, bridgeUser.id);
    const ana = teams.createUser("Ana");
    const channel = teams.createChannel("General");
    const run = await startInboundRun(teardown, {
      account: `[msteams.work]\nTenantID = "${teams.tenantId}"\nClientID = "${teams.clientId}"\nTeamID = "${teams.teamId}"\nLoginURL = "${teams.url}"\nGraphURL = "${teams.url}"\nPollInterval = 100\nSessionFile = ""\nRemoteNickFormat = "<{NICK}> "`,
      accountId: "msteams.work",
      channel,
    });
    teams.injectMessage(channel, { id: null, body: null });
    teams.injectMessage(channel, { createdDateTime: "yesterday", lastModifiedDateTime: "not a time", from: 7 });
    teams.injectMessage(channel, { id: "12/34", body: { content: 5 }, replies: 3 });
    ana.say(channel, "<p>after the faults</p>");

    await assertBurstSkipped(run, { relayed: ["after the faults"], account: /msteams\.work/, what: /a Teams message/ });
  });
});
