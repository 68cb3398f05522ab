// cleanNick: every relayed nick is one plain, bounded line before RemoteNickFormat, whatever a platform sent.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { cleanAnyNick, cleanNick, MAX_NICK_CODE_POINTS } from "../src/core/clean-nick.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a clean nick must not hold
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("cleanNick", () => {
  it("turns line breaks into spaces and removes other control characters", () => {
    assert.equal(cleanNick("Mia\r\nPRIVMSG #all :[irc] <ivan> I approve"), "Mia PRIVMSG #all :[irc] <ivan> I approve");
    assert.equal(cleanNick("q\r\nQUIT :bye"), "q QUIT :bye");
    assert.equal(cleanNick("nu\0ll"), "null");
    assert.equal(cleanNick("\x02bold\x0f \x034red"), "bold 4red");
    assert.equal(cleanNick("evil\u202egnp.exe"), "evilgnp.exe");
    assert.equal(cleanNick("line\u2028two"), "line two");
  });

  it("leaves ordinary names alone, emoji and zero-width joiners included", () => {
    for (const nick of ["alice", "Zoë", "李雷", "👩‍👩‍👧 family", "a  b", " padded "])
      assert.equal(cleanNick(nick), nick);
  });

  it("bounds the length in code points, never splitting a surrogate pair", () => {
    const long = "😀".repeat(200);
    const clean = cleanNick(long);
    assert.equal(Array.from(clean).length, MAX_NICK_CODE_POINTS);
    assert.ok(clean.endsWith("…"));
    assert.ok(!/[\ud800-\udbff]…$/.test(clean));
  });

  it("never returns a control character or more than the bound, for any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (nick) => {
        const clean = cleanNick(nick);
        assert.ok(!CONTROL.test(clean), JSON.stringify(clean));
        assert.ok(Array.from(clean).length <= MAX_NICK_CODE_POINTS);
        assert.equal(cleanNick(clean), clean);
      }),
      { numRuns: 2000 },
    );
  });

  it("returns the usual nick as it is, as the general cleaning would", () => {
    const unit = fc.oneof(
      fc.constantFrom(
        "a",
        "Z",
        " ",
        "_",
        "\t",
        "\r",
        "\n",
        "\v",
        "\u0085",
        "\u2028",
        "\u202e",
        "\u2066",
        "\u007f",
        "é",
      ),
      fc.string({ unit: "grapheme", maxLength: 1 }),
      fc.string({ unit: "binary", maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 80 }), (nick) => {
        assert.equal(cleanNick(nick), cleanAnyNick(nick));
      }),
      { numRuns: 3000 },
    );
  });
});
