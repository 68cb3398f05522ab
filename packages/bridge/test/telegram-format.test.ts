// MessageFormat and the inbound naming keys, checked by what Telegram (the simulator, which parses markup as the
// platform does and refuses what it cannot parse) shows, and by what other accounts receive.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { post, suiteTeardown } from "./helpers.ts";
import { startTelegramRun } from "./telegram-fixture.ts";

const TEXT = "1.5 < 2 & **bold** (see [docs](https://example.test/a_b)) snake_case";

describe("telegram message formats", () => {
  const teardown = suiteTeardown();

  it("MarkdownV2: the nick and the text escaped, Markdown converted", async () => {
    const run = await startTelegramRun(teardown, {
      telegram: 'MessageFormat = "MarkdownV2"',
      nickFormat: "[{PROTOCOL}] <{NICK}> ",
    });
    await post(run.apiUrl, { text: TEXT, username: "bob", gateway: "g" });
    const sent = await run.tg.botActions.waitFor((a) => a.method === "sendMessage", { what: "the message" });
    assert.equal(sent.parseMode, "MarkdownV2");
    assert.equal(sent.text, "[api] <bob> 1.5 < 2 & bold (see docs) snake_case");
    assert.deepEqual(
      sent.entities.map((e) => [e.type, sent.text.slice(e.offset, e.offset + e.length), e.url]),
      [
        ["bold", "bold", undefined],
        ["text_link", "docs", "https://example.test/a_b"],
      ],
    );
  });

  it("HTML: the text's Markdown as HTML; HTMLNick: HTML nick, text as typed", async () => {
    const html = await startTelegramRun(teardown, {
      telegram: 'MessageFormat = "HTML"',
      nickFormat: "<b>{NICK}</b>: ",
    });
    await post(html.apiUrl, { text: TEXT, username: "bob", gateway: "g" });
    const sent = await html.tg.botActions.waitFor((a) => a.method === "sendMessage", { what: "the HTML message" });
    assert.equal(sent.parseMode, "HTML");
    assert.equal(sent.text, "bob: 1.5 < 2 & bold (see docs) snake_case");
    assert.deepEqual(
      sent.entities.map((e) => e.type),
      ["bold", "bold", "text_link"],
    );

    const nick = await startTelegramRun(teardown, {
      telegram: 'MessageFormat = "HTMLNick"',
      nickFormat: "<b>{NICK}</b>: ",
    });
    await post(nick.apiUrl, { text: "a <i>not html</i> **x**", username: "bob", gateway: "g" });
    const typed = await nick.tg.botActions.waitFor((a) => a.method === "sendMessage", { what: "the HTMLNick message" });
    assert.equal(typed.text, "bob: a <i>not html</i> **x**");
    assert.deepEqual(
      typed.entities.map((e) => e.type),
      ["bold"],
    );
  });

  it("sends the message as plain text when Telegram refuses the markup, instead of losing it", async () => {
    // Matterbridge's HTML mode needs the operator to write &lt;{NICK}&gt;; "<{NICK}>" is refused by Telegram.
    const run = await startTelegramRun(teardown, { telegram: 'MessageFormat = "HTML"' });
    await post(run.apiUrl, { text: "still **here**", username: "bob", gateway: "g" });
    const sent = await run.tg.botActions.waitFor((a) => a.method === "sendMessage", { what: "the fallback" });
    assert.equal(sent.parseMode, "");
    assert.equal(sent.text, "<bob> still **here**");
    assert.deepEqual(
      run.tg.calls.filter((c) => c.method === "sendMessage").map((c) => c.status),
      [400, 200],
    );
    assert.ok(run.bridge.logs.some((line) => line.includes("refused the HTML markup")));
  });

  it("names users by UseFullName, shows formatting entities as Markdown, and clips quotes to QuoteLengthLimit", async () => {
    const run = await startTelegramRun(teardown, { telegram: "UseFullName = true\nQuoteLengthLimit = 5" });
    const { tg, chat, alice } = run;
    const parent = alice.say(chat, "a long question");
    alice.say(chat, "bold and a link", {
      replyTo: parent,
      entities: [
        { type: "bold", offset: 0, length: 4 },
        { type: "text_link", offset: 11, length: 4, url: "https://example.test/" },
      ],
    });
    const got = await run.waitForApi((m) => m.text.startsWith("*bold*"), "the formatted reply");
    assert.equal(got.text, "*bold* and a link (https://example.test/) (re @Alice Liddell: a lon...)");
    assert.equal(got.username, "Alice Liddell");
    assert.equal(tg.unhandled.length, 0, "the account only calls methods the simulator implements");
  });
});
