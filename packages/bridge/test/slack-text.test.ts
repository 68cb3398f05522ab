// Slack text conversion: mrkdwn made readable for other platforms (mentions, channels, special mentions, links,
// bold/strike, entities), other platforms' text escaped for Slack with known @names as mentions, clipping at 40,000
// characters; and for any text, escaping leaves no markup of its own and reading it back gives the text again.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { readableText, slackText } from "../src/accounts/slack/mrkdwn.ts";
import { outboundText, postedName, SLACK_MAX_TEXT } from "../src/accounts/slack/outbound.ts";
import type { Delivery } from "../src/core/account.ts";
import { emptyMessage } from "../src/message.ts";

const names = {
  user: (id: string) => ({ U1: "ana", U2: "Bob B" })[id],
  channel: (id: string) => ({ C1: "general" })[id],
};
const delivery = (fields: Parameters<typeof emptyMessage>[0]): Delivery => ({
  message: emptyMessage({ account: "irc.net", protocol: "irc", ...fields }),
  channel: "general",
  gateway: "g",
  options: {},
});
const settings = { PrefixMessagesWithNick: false, IconURL: "", MessageClipped: "<clipped message>" };

describe("Slack text", () => {
  it("makes mrkdwn readable", () => {
    const cases: [string, string][] = [
      ["<@U1> and <@U2>", "@ana and @Bob B"],
      ["<@U9|someone> <@U9>", "@someone @U9"],
      ["in <#C1|general> and <#C1> and <#C9>", "in #general and #general and #C9"],
      ["<!here> <!channel> <!subteam^S1|@devs> <!date^1392734382^{date}|Feb 18th>", "@here @channel @devs Feb 18th"],
      [
        "<https://example.com|example.com> <https://x.org/a|docs> <mailto:a@b.c|a@b.c>",
        "https://example.com [docs](https://x.org/a) a@b.c",
      ],
      ["*bold* and ~gone~ but 2*3*4", "**bold** and ~~gone~~ but 2*3*4"],
      ["&gt; quoted &amp;&lt;tag&gt;", "> quoted &<tag>"],
    ];
    for (const [slack, readable] of cases) assert.equal(readableText(slack, names), readable, slack);
  });

  it("escapes text for Slack, with known names as mentions", () => {
    const known = (name: string) => (name === "ana" ? "U1" : undefined);
    assert.equal(slackText("hi @ana and @nobody <b>&", known), "hi <@U1> and @nobody &lt;b&gt;&amp;");
    assert.equal(slackText("**bold** ~~gone~~", known), "*bold* ~gone~");
    assert.equal(slackText("mail ana@example.com", known), "mail ana@example.com");
  });

  it("never leaves markup of its own, and reads back to the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (text) => {
        const escaped = slackText(text, () => undefined);
        assert.ok(!/[<>]/.test(escaped), escaped);
        assert.ok(!/&(?!amp;|lt;|gt;)/.test(escaped), escaped);
        if (!/[*~]/.test(text)) assert.equal(readableText(escaped, names), text);
      }),
    );
  });

  it("reads any text without throwing", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        assert.equal(typeof readableText(text, names), "string");
      }),
    );
  });

  it("writes actions in italics, files as links, the nick when asked, and clips at Slack's limit", () => {
    assert.equal(outboundText(delivery({ text: "waves", event: "user_action" }), settings), "_waves_");
    const file = { Name: "cat.png", URL: "https://files.example/cat.png", Comment: "my cat" };
    assert.equal(
      outboundText(delivery({ text: "look", Extra: { file: [file] } }), settings),
      "look\nmy cat : https://files.example/cat.png",
    );
    const prefixed = { ...settings, PrefixMessagesWithNick: true };
    assert.equal(outboundText(delivery({ text: "hi", username: "[irc] <ivan> " }), prefixed), "[irc] <ivan> hi");
    const long = outboundText(delivery({ text: "😀".repeat(SLACK_MAX_TEXT) }), settings);
    assert.ok(long.length <= SLACK_MAX_TEXT);
    assert.ok(long.endsWith(" <clipped message>"));
    assert.ok(!/[\uD800-\uDBFF] <clipped/.test(long));
  });

  it("clips so that the text Slack receives, escaped and with mentions, is within its limit", () => {
    const ids = (name: string) => (name.length < 3 ? `U${name.padEnd(20, "X")}` : undefined);
    const hostile = fc.array(fc.constantFrom("<", ">", "&", "@a", "@bob", "x", "é", "😀", " ", "\n"), {
      minLength: 9_000,
      maxLength: 20_000,
    });
    fc.assert(
      fc.property(hostile, (pieces) => {
        const sent = slackText(outboundText(delivery({ text: pieces.join("") }), settings), ids);
        assert.ok(sent.length <= SLACK_MAX_TEXT, String(sent.length));
      }),
      { numRuns: 20 },
    );
    const escaped = slackText(outboundText(delivery({ text: "<".repeat(50_000) }), settings), ids);
    assert.ok(escaped.length <= SLACK_MAX_TEXT && escaped.endsWith(" &lt;clipped message&gt;"));
  });

  it("posts under the nick with the source's avatar or IconURL, or as the app with PrefixMessagesWithNick", () => {
    const icon = { ...settings, IconURL: "https://robohash.example/{NICK}-{BRIDGE}-{PROTOCOL}.png" };
    assert.deepEqual(postedName(delivery({ username: "[irc] <ivan> " }), icon), {
      username: "[irc] <ivan>",
      icon_url: "https://robohash.example/%5Birc%5D%20%3Civan%3E-net-irc.png",
    });
    assert.deepEqual(postedName(delivery({ username: "ivan", avatar: "https://a.example/i.png" }), icon), {
      username: "ivan",
      icon_url: "https://a.example/i.png",
    });
    assert.deepEqual(postedName(delivery({ username: "ivan" }), { ...icon, PrefixMessagesWithNick: true }), {});
  });
});
