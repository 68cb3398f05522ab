// A post's answer is the message as the client submitted it; PostedMessage keeps a snapshot and encodes it when the
// answer is written, after the router has rewritten the message (nick, account, timestamp, ...). Whatever the message
// holds and whatever is changed afterwards, the answer must be the message encoded as it was when it was posted.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { PostedMessage } from "../src/accounts/api/posted-message.ts";
import { emptyMessage, encodeMessage, MESSAGE_FIELDS, type Message, type MessageExtra } from "../src/message.ts";

const STRING_FIELDS = MESSAGE_FIELDS.filter((field) => field !== "Extra");
const text = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom("a", '"', "\\", "\n", "\u0000", "\ud83d", "é") }));
const messageArb: fc.Arbitrary<Message> = fc
  .record({
    values: fc.tuple(...STRING_FIELDS.map(() => text)),
    // A new Extra each time: the test changes it after posting.
    Extra: fc.oneof(
      fc.constant<MessageExtra>(null),
      fc.constant(0).map((): MessageExtra => ({ file: [{ Name: "a.png", URL: "https://x/a.png" }] })),
    ),
  })
  .map(({ values, Extra }) =>
    emptyMessage({ ...Object.fromEntries(STRING_FIELDS.map((field, i) => [field, values[i]])), Extra }),
  );

describe("PostedMessage", () => {
  it("answers the message as it was posted, whatever is changed afterwards", () => {
    fc.assert(
      fc.property(messageArb, fc.subarray([...STRING_FIELDS]), fc.boolean(), (message, changed, readEarly) => {
        const expected = encodeMessage(message);
        const posted = new PostedMessage(message);
        if (readEarly) assert.equal(posted.encoded, expected);
        for (const field of changed) message[field] = `${message[field]} (rewritten)`;
        const file = message.Extra?.["file"] as { Name: string }[] | undefined;
        if (file?.[0] !== undefined) file[0].Name = "rewritten.png";
        posted.deliveries = 2;
        assert.equal(posted.encoded, expected);
        assert.equal(posted.encoded, expected);
        assert.equal(posted.deliveries, 2);
      }),
      { numRuns: 300 },
    );
  });
});
