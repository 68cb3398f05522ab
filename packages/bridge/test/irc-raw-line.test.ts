// rawIrcLine builds the lines the IRC account sends without irc-framework's rawString: for any command, target,
// text and tag prefix (white space of every kind, leading colons, empty strings, anything a user may write), the
// line must be the one rawString builds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Client } from "irc-framework";
import { rawIrcLine } from "../src/accounts/irc/raw-line.ts";

const client = new Client();
const part = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("", ":", ": x", "a b", "\t", "\u00a0", "\u2028", "\ufeff", "x\n", ":x", "<nick> hi"),
  fc
    .array(fc.constantFrom(":", " ", "\t", "\u3000", "a", "é", "\x01", "\r"), { maxLength: 8 })
    .map((chars) => chars.join("")),
);

describe("rawIrcLine", () => {
  it("builds the line irc-framework's rawString builds", () => {
    fc.assert(
      fc.property(fc.constantFrom("PRIVMSG", "NOTICE"), part, part, (command, target, text) => {
        assert.equal(rawIrcLine(command, target, text), client.rawString(command, target, text));
      }),
      { numRuns: 2000 },
    );
  });

  it("builds the same line with a tag prefix", () => {
    fc.assert(
      fc.property(fc.constantFrom("PRIVMSG", "NOTICE"), part, part, part, (command, target, text, id) => {
        const prefix = `@reply-parent-msg-id=${id}`;
        assert.equal(rawIrcLine(command, target, text, prefix), client.rawString(prefix, command, target, text));
      }),
      { numRuns: 2000 },
    );
  });
});
