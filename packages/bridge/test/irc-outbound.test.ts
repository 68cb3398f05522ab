// ircLines: what a bridged message becomes on IRC (pure; the ngIRCd tests cover the wire).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ircLines, linesOf, type OutboundSettings } from "../src/accounts/irc/outbound.ts";
import { utf8Length } from "../src/accounts/irc/split.ts";
import type { Delivery } from "../src/core/account.ts";
import { emptyMessage, type Message } from "../src/message.ts";

const settings: OutboundSettings = {
  MessageLength: 60,
  MessageSplit: true,
  MessageClipped: " <clipped message>",
  MessageMaxLines: 30,
  ColorNicks: false,
  StripMarkdown: false,
};

const delivery = (fields: Partial<Message>): Delivery => ({
  message: emptyMessage({ username: "<bob> ", ...fields }),
  channel: "#c",
  gateway: "g",
  options: {},
});

const texts = (d: Delivery, s: Partial<OutboundSettings> = {}) => ircLines(d, { ...settings, ...s }).map((l) => l.text);

describe("ircLines", () => {
  it("one PRIVMSG per non-blank line, each with the nick", () => {
    assert.deepEqual(ircLines(delivery({ text: "a\r\n\nb  \n" }), settings), [
      { command: "PRIVMSG", text: "<bob> a" },
      { command: "PRIVMSG", text: "<bob> b" },
    ]);
  });

  it("splits so that nick + text fit in MessageLength bytes, never inside a character", () => {
    const lines = texts(delivery({ text: "é".repeat(100) }));
    assert.ok(lines.length > 1);
    for (const line of lines)
      assert.ok(utf8Length(line) <= 60 && line.startsWith("<bob> ") && !line.includes("\ufffd"));
    assert.equal(lines.map((l) => l.slice(6)).join(""), "é".repeat(100));
  });

  it("clips with MessageClipped when MessageSplit is false", () => {
    const [line, ...rest] = texts(delivery({ text: "x".repeat(100) }), { MessageSplit: false });
    assert.equal(rest.length, 0);
    assert.ok(line?.endsWith(" <clipped message>") && utf8Length(line) <= 60);
  });

  it("actions as CTCP ACTION within the limit, notices as NOTICE", () => {
    const [action] = ircLines(delivery({ text: "waves", event: "user_action" }), settings);
    assert.deepEqual(action, { command: "PRIVMSG", text: "\x01ACTION <bob> waves\x01" });
    for (const line of texts(delivery({ text: "y".repeat(200), event: "user_action" }))) {
      assert.ok(utf8Length(line) <= 60);
    }
    assert.equal(ircLines(delivery({ text: "hi", event: "notice_irc" }), settings)[0]?.command, "NOTICE");
  });

  it("drops deletes and typing, sends edits as new messages, and removes \\x01 (no CTCP injection)", () => {
    assert.deepEqual(texts(delivery({ text: "gone", event: "msg_delete", id: "1" })), []);
    assert.deepEqual(texts(delivery({ text: "", event: "user_typing" })), []);
    assert.deepEqual(texts(delivery({ text: "fixed", id: "1" })), ["<bob> fixed"]);
    assert.deepEqual(texts(delivery({ text: "\x01VERSION\x01" })), ["<bob> VERSION"]);
  });

  it("ColorNicks colours the nick; StripMarkdown strips markup; files become their URL", () => {
    const [colored] = texts(delivery({ text: "hi", username: "bob" }), { ColorNicks: true });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: mIRC colour codes are control characters
    assert.match(colored ?? "", /^\x03\d\dbob\x0fhi$/);
    assert.deepEqual(texts(delivery({ text: "**bold**" }), { StripMarkdown: true }), ["<bob> bold"]);
    const withFile = delivery({
      text: "look",
      Extra: { file: [{ Name: "a.png", URL: "https://x/a.png", Comment: "" }] },
    });
    assert.deepEqual(texts(withFile), ["<bob> look", "<bob> https://x/a.png"]);
  });

  it("takes at most MessageMaxLines lines, the last counting the lines and files that did not fit", () => {
    const files = Array.from({ length: 5000 }, (_, i) => ({ URL: `https://files.example/${i}` }));
    const lines = texts(delivery({ text: "one\ntwo", Extra: { file: files } }), { MessageMaxLines: 10 });
    assert.equal(lines.length, 10);
    assert.deepEqual(lines.slice(0, 3), ["<bob> one", "<bob> two", "<bob> https://files.example/0"]);
    assert.equal(lines[9], "<bob> (+4,993 more files)");
    const long = texts(delivery({ text: "x\n".repeat(40) }), { MessageMaxLines: 5 });
    assert.deepEqual(long.slice(4), ["<bob> (+36 more lines)"]);
    const both = texts(delivery({ text: "a\nb\nc", Extra: { file: files.slice(0, 2) } }), { MessageMaxLines: 2 });
    assert.deepEqual(both, ["<bob> a", "<bob> (+2 more lines, +2 more files)"]);
    assert.equal(
      texts(delivery({ text: "a\nb", Extra: { file: files.slice(0, 1) } }), { MessageMaxLines: 3 }).length,
      3,
    );
  });

  it("keeps a file's comment and URL on one line, whatever they hold", () => {
    const file = { URL: "https://x.example/a\r\nQUIT :bye", Comment: "look\r\nPRIVMSG #all :spoof" };
    const lines = texts(delivery({ text: "", Extra: { file: [file] } }), { MessageLength: 400 });
    assert.deepEqual(lines, ["<bob> look PRIVMSG #all :spoof : https://x.example/a QUIT :bye"]);
  });

  it("gives the usual one-line message the lines the general case gives it", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: "grapheme", maxLength: 80 }),
      fc.constantFrom("hi", "hi  ", " \t", "a\nb", "x\x01y", "nul\0", "é".repeat(30), "😀".repeat(20)),
    );
    const file = fc.record({ URL: fc.constantFrom("https://x/y", ""), Comment: fc.string({ maxLength: 5 }) });
    const message = fc.record({
      text,
      username: fc.oneof(fc.constantFrom("<bob> ", "", "\x01x ", "é".repeat(40)), fc.string({ maxLength: 10 })),
      event: fc.constantFrom("", "user_action", "notice_irc", "msg_delete"),
      Extra: fc.oneof(fc.constant({}), fc.record({ file: fc.array(file, { maxLength: 2 }) })),
    });
    const options = fc.record({
      MessageLength: fc.integer({ min: 20, max: 120 }),
      MessageSplit: fc.boolean(),
      MessageMaxLines: fc.integer({ min: 0, max: 3 }),
      ColorNicks: fc.boolean(),
      StripMarkdown: fc.boolean(),
    });
    fc.assert(
      fc.property(message, options, (fields, chosen) => {
        const d = delivery(fields as Partial<Message>);
        const s = { ...settings, ...chosen };
        const expected = fields.event === "msg_delete" ? [] : linesOf(d.message, s);
        assert.deepEqual(ircLines(d, s), expected);
      }),
      { numRuns: 2000 },
    );
  });
});
