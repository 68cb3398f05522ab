import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { sequenceAtEnd } from "./raw-irc-client.ts";

test("the sequence number is read from the end of a text as the regular expression /m(\\d+)$/ reads it", () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom("m", "1", "0", "9", " ", "<", "x") }), (text) => {
      const match = /m(\d+)$/.exec(text);
      assert.equal(sequenceAtEnd(text), match === null ? -1 : Number(match[1]));
    }),
  );
});
