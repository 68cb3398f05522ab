// IRC line splitting and clipping: byte limits, UTF-8 boundaries, word preference.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  clipLine,
  clipMessage,
  DEFAULT_CLIPPED,
  messageLines,
  splitLine,
  splitMessage,
  utf8Length,
} from "../src/accounts/irc/split.ts";

const noSpace = (text: string) => text.replace(/\s/g, "");
/** No lone surrogate (String.prototype.isWellFormed is ES2024, beyond the project's lib). */
const wellFormed = (text: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

describe("utf8Length", () => {
  it("counts the bytes TextEncoder writes, lone surrogates (U+FFFD) included", () => {
    const encoder = new TextEncoder();
    const units = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });
    fc.assert(
      fc.property(fc.oneof(units, fc.string({ unit: "binary" })), (text) => {
        assert.equal(utf8Length(text), encoder.encode(text).length);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("messageLines", () => {
  it("gives one IRC line per message line, without empty lines or NUL", () => {
    assert.deepEqual(messageLines("one\r\ntwo\n\n  \nthree\rfour\0"), ["one", "two", "three", "four"]);
    assert.deepEqual(messageLines("\n\n"), []);
    assert.deepEqual(messageLines("  indented  \ntrailing\t "), ["  indented", "trailing"]);
  });
});

describe("splitLine", () => {
  it("leaves a line that fits alone", () => {
    assert.deepEqual(splitLine("short", 10), ["short"]);
    assert.deepEqual(splitLine("exactly10!", 10), ["exactly10!"]);
  });

  it("prefers the last space, dropping it", () => {
    assert.deepEqual(splitLine("hello brave new world", 12), ["hello brave", "new world"]);
  });

  it("cuts inside a word when no space keeps the part half full", () => {
    assert.deepEqual(splitLine("a bcdefghijklmnop", 8), ["a bcdefg", "hijklmno", "p"]);
  });

  it("never cuts inside a code point", () => {
    // "é" is 2 bytes, "👋" 4: a 5-byte limit fits "éé" (4) but not "éé" plus the next byte.
    assert.deepEqual(splitLine("ééé", 5), ["éé", "é"]);
    assert.deepEqual(splitLine("👋👋👋", 6), ["👋", "👋", "👋"]);
    assert.deepEqual(splitLine("a👋b", 4), ["a", "👋", "b"]);
  });

  it("appends a continuation marker to every part but the last, within the limit", () => {
    const parts = splitLine("x".repeat(30), 25, DEFAULT_CLIPPED);
    assert.ok(parts.slice(0, -1).every((part) => part.endsWith(DEFAULT_CLIPPED)));
    assert.ok(!parts.at(-1)!.endsWith(DEFAULT_CLIPPED));
    assert.ok(parts.every((part) => utf8Length(part) <= 25));
    assert.equal(parts.map((part) => part.replace(DEFAULT_CLIPPED, "")).join(""), "x".repeat(30));
  });

  it("refuses a limit that leaves no room beside the marker", () => {
    assert.throws(() => splitLine("x".repeat(30), 20, "x".repeat(18)), RangeError);
  });

  it("property: parts fit, are well formed, non-empty, and lose only break spaces", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), fc.integer({ min: 4, max: 60 }), (line, max) => {
        const parts = splitLine(line, max);
        for (const part of parts) {
          assert.ok(utf8Length(part) <= max, `${JSON.stringify(part)} > ${max} bytes`);
          assert.ok(wellFormed(part));
          assert.ok(part.length > 0 || line.length === 0);
        }
        assert.equal(noSpace(parts.join("")), noSpace(line));
      }),
    );
  });

  it("property: lone surrogates and any code point never make a part exceed the limit", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 100 }), fc.integer({ min: 4, max: 30 }), (line, max) => {
        for (const part of splitLine(line, max)) assert.ok(utf8Length(part) <= max);
      }),
    );
  });
});

describe("clipLine", () => {
  it("clips to the limit with Matterbridge's default marker", () => {
    const clipped = clipLine("y".repeat(50), 30);
    assert.equal(clipped, `${"y".repeat(30 - DEFAULT_CLIPPED.length)}${DEFAULT_CLIPPED}`);
    assert.equal(clipLine("fits", 30), "fits");
  });

  it("clips on a code point boundary", () => {
    assert.equal(clipLine("éééé", 7, "…"), "éé…"); // "…" is 3 bytes: 4 bytes left = 2 × é
  });

  it("property: the result fits and is a prefix of the line plus the suffix", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 120 }), fc.integer({ min: 20, max: 80 }), (line, max) => {
        const clipped = clipLine(line, max);
        assert.ok(utf8Length(clipped) <= max);
        assert.ok(wellFormed(clipped));
        if (clipped !== line) assert.ok(line.startsWith(clipped.slice(0, -DEFAULT_CLIPPED.length)));
      }),
    );
  });
});

describe("splitMessage and clipMessage", () => {
  it("split: every line, each long one in parts", () => {
    assert.deepEqual(splitMessage("first line\nsecond one is long", 10), ["first line", "second one", "is long"]);
  });

  it("clip: every line, each long one clipped", () => {
    assert.deepEqual(clipMessage("ok\nthis line is far too long", 12, "…"), ["ok", "this line…"]);
  });
});
