// IRC text helpers: formatting codes, ColorNicks, Charset, RunCommands, StripMarkdown.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { decodeIrc, encodeIrcAsLatin1, isKnownCharset } from "../src/accounts/irc/charset.ts";
import { expandRunCommand } from "../src/accounts/irc/commands.ts";
import { colorNick, stripIrcFormatting } from "../src/accounts/irc/formatting.ts";
import { usersMessages } from "../src/accounts/irc/inbound.ts";
import { stripMarkdown } from "../src/accounts/irc/strip-markdown.ts";

describe("stripIrcFormatting", () => {
  it("removes colours with and without fg/bg, bold, italic, underline, reverse, reset, monospace", () => {
    assert.equal(stripIrcFormatting("\x0304red\x03 \x0312,01blue on black\x0f \x02bold\x02"), "red blue on black bold");
    assert.equal(
      stripIrcFormatting("\x1ditalic\x1d \x1funder\x1f \x16rev\x16 \x11mono\x11 \x1estrike"),
      "italic under rev mono strike",
    );
    assert.equal(stripIrcFormatting("\x04ff0000hex\x04"), "hex");
  });

  it("keeps digits after a bare colour code's limit, and a comma not followed by a digit", () => {
    assert.equal(stripIrcFormatting("\x03123"), "3");
    assert.equal(stripIrcFormatting("\x034,text"), ",text");
  });

  it("keeps ordinary text, tabs and non-ASCII", () => {
    assert.equal(stripIrcFormatting("héllo\tworld 👋"), "héllo\tworld 👋");
  });

  it("property: the result has no C0 control characters except tab and line breaks, and is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
        const stripped = stripIrcFormatting(text);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for control characters
        assert.doesNotMatch(stripped, /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/);
        assert.equal(stripIrcFormatting(stripped), stripped);
      }),
    );
  });
});

describe("colorNick", () => {
  it("wraps the nick in a stable colour between 02 and 15, then a reset", () => {
    const colored = colorNick("alice");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour and reset codes are control characters
    assert.match(colored, /^\x03(0[2-9]|1[0-5])alice\x0f$/);
    assert.equal(colorNick("alice"), colored);
    assert.equal(stripIrcFormatting(colored), "alice");
  });

  it("matches Matterbridge's CRC-32 choice", () => {
    // crc32("alice") = 663665735; 663665735 % 14 + 2 = 7
    assert.equal(colorNick("alice"), "\x0307alice\x0f");
  });
});

describe("decodeIrc", () => {
  it("decodes valid UTF-8 as UTF-8 and anything else as Windows-1252 when no charset is set", () => {
    assert.equal(decodeIrc(Buffer.from("héllo 👋", "utf8")), "héllo 👋");
    assert.equal(decodeIrc(Buffer.from([0x68, 0xe9, 0x6c, 0x6c, 0x6f])), "héllo");
  });

  it("uses a configured charset", () => {
    assert.equal(decodeIrc(Buffer.from([0xc0, 0xc1]), "koi8-r"), "юа");
    assert.equal(decodeIrc(Buffer.from([0x82, 0xa0]), "shift-jis"), "あ");
  });

  it("rejects an unknown charset with a clear message", () => {
    assert.throws(() => decodeIrc(Buffer.from("x"), "klingon"), /unknown Charset "klingon"/);
    assert.equal(isKnownCharset("iso-8859-15"), true);
    assert.equal(isKnownCharset("klingon"), false);
  });

  it("round-trips through a latin1 client", () => {
    const wire = encodeIrcAsLatin1("héllo 👋");
    assert.equal(decodeIrc(Buffer.from(wire, "latin1")), "héllo 👋");
  });
});

describe("expandRunCommand", () => {
  it("puts our nick in place of every {BOTNICK}", () => {
    assert.equal(
      expandRunCommand("MODE {BOTNICK} +B; PRIVMSG {BOTNICK} :hi", "bot_"),
      "MODE bot_ +B; PRIVMSG bot_ :hi",
    );
    assert.equal(expandRunCommand("PRIVMSG NickServ :hi", "bot"), "PRIVMSG NickServ :hi");
  });
});

describe("stripMarkdown", () => {
  const cases: [string, string][] = [
    ["**bold** and __bold__", "bold and bold"],
    ["*it* and _it_", "it and it"],
    ["~~gone~~", "gone"],
    ["use `npm test`", "use npm test"],
    ["# Title\n> quoted", "Title\nquoted"],
    ["[docs](https://example.org/d)", "docs (https://example.org/d)"],
    ["[https://x.org](https://x.org)", "https://x.org"],
    ["![logo](https://x.org/l.png)", "logo (https://x.org/l.png)"],
    ["<https://x.org>", "https://x.org"],
    ["```js\nconst a = 1;\n```", "\nconst a = 1;\n"],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => assert.equal(stripMarkdown(input), expected));
  }

  it("leaves what is not markup alone", () => {
    for (const text of ["snake_case_name", "2*3*4 = 24", "a * b", "price: 5*", "file_name.txt and my_var", "<3"]) {
      assert.equal(stripMarkdown(text), text);
    }
  });

  it("property: never adds characters other than around links, and never throws", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (text) => {
        const stripped = stripMarkdown(text);
        if (!text.includes("](")) assert.ok(stripped.length <= text.length);
      }),
    );
  });
});

describe("usersMessages (the answer to !users)", () => {
  it("lists every nick once, sorted, at most 300 a post", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), { maxLength: 700 }), (nicks) => {
        const posts = usersMessages(nicks, "#main", "bot");
        assert.equal(posts.length, Math.ceil(nicks.length / 300));
        const listed = posts.flatMap((post) => {
          assert.ok(post.text.endsWith(" currently on IRC"));
          assert.equal(post.username, "bot");
          assert.equal(post.channel, "#main");
          return post.text.slice(0, -" currently on IRC".length).split(", ");
        });
        assert.deepEqual(listed, [...nicks].sort());
      }),
      { numRuns: 50 },
    );
  });
});
