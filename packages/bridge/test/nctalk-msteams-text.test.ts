// What the nctalk and msteams accounts send, for any text: within the platform's limit (Talk: 32,000 characters;
// Teams: about 28 KB of escaped HTML), cut with MessageClipped when longer, the nick in front, an action marked,
// mass mentions neutralised on Talk, and on Teams every character escaped so that nothing relayed becomes markup.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { htmlToText } from "../src/accounts/msteams/html.ts";
import { outboundHtml, TEAMS_MAX_HTML_BYTES } from "../src/accounts/msteams/outbound.ts";
import { outboundText, TALK_MAX_TEXT } from "../src/accounts/nctalk/outbound.ts";
import type { Delivery } from "../src/core/account.ts";
import { emptyMessage } from "../src/message.ts";

const delivery = (fields: Parameters<typeof emptyMessage>[0]): Delivery => ({
  message: emptyMessage({ account: "irc.net", protocol: "irc", username: "[irc] <ivan> ", ...fields }),
  channel: "c",
  gateway: "g",
  options: {},
});
const talk = { SeparateDisplayName: false, MessageClipped: "<clipped message>", AllowMassMentions: false };

describe("Talk messages out", () => {
  it("puts the nick in front, marks actions, neutralises @all and @here, and clips at 32,000 characters", () => {
    assert.equal(
      outboundText(delivery({ text: "hi @all and @here" }), talk),
      "[irc] <ivan> hi @\u200dall and @\u200dhere",
    );
    assert.equal(
      outboundText(delivery({ text: "hi @all" }), { ...talk, AllowMassMentions: true }),
      "[irc] <ivan> hi @all",
    );
    assert.equal(outboundText(delivery({ text: "waves", event: "user_action" }), talk), "[irc] <ivan> *waves*");
    assert.equal(outboundText(delivery({ text: "hi" }), { ...talk, SeparateDisplayName: true }), "hi");
    const long = outboundText(delivery({ text: "x".repeat(40_000) }), talk);
    assert.equal(long.length, TALK_MAX_TEXT);
    assert.ok(long.endsWith(" <clipped message>"));
  });

  it("never passes the limit, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 33_000 }), (text) => {
        assert.ok(outboundText(delivery({ text }), talk).length <= TALK_MAX_TEXT);
      }),
      { numRuns: 50 },
    );
  });
});

describe("Teams messages out", () => {
  it("escapes everything, marks actions, and clips within about 28 KB", () => {
    assert.equal(
      outboundHtml(delivery({ text: '<b>x</b> & "y"\nz' }), "<c>"),
      "<p>[irc] &lt;ivan&gt; &lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot;<br>z</p>",
    );
    assert.equal(
      outboundHtml(delivery({ text: "waves", event: "user_action" }), "<c>"),
      "<p>[irc] &lt;ivan&gt; <em>waves</em></p>",
    );
    const long = outboundHtml(delivery({ text: "<".repeat(20_000) }), "<clipped message>");
    assert.ok(Buffer.byteLength(long) <= TEAMS_MAX_HTML_BYTES + 64);
    assert.ok(long.endsWith("&lt;clipped message&gt;</p>"));
  });

  it("never passes the limit, and reads back as the text it was made from", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.string({ unit: "binary", maxLength: 12_000 }),
        (short, long) => {
          const html = outboundHtml(delivery({ text: long }), "<clipped message>");
          assert.ok(Buffer.byteLength(html) <= 28_000);
          const round = outboundHtml(delivery({ text: short, username: "" }), "");
          if (short.trim() === "") assert.equal(round, "");
          else
            assert.equal(
              htmlToText(round),
              short
                .trim()
                .replace(/\r\n/g, "\n")
                .replace(/\n{3,}/g, "\n\n"),
            );
        },
      ),
      { numRuns: 200 },
    );
  });
});
