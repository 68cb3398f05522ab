// The matrix account's pure conversions: events to messages (edits, replies, threads, redactions, media) and
// deliveries to Matrix content (HTML escaping, usernames with HTML, edits, replies, notices).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { inboundMessage, type RoomEvent, stripQuotedReply } from "../src/accounts/matrix/inbound.ts";
import { markdownToHtml } from "../src/accounts/matrix/markdown.ts";
import { matrixSend, matrixUsername } from "../src/accounts/matrix/outbound.ts";
import type { Delivery } from "../src/core/account.ts";
import { emptyMessage, type Message } from "../src/message.ts";

const source = { channel: "#r:hs", username: "Alice", userid: "@alice:hs", avatar: "" };
const options = { keepQuotedReply: false, mediaUrl: (mxc: string) => `https://hs/dl/${mxc.slice(6)}` };
const event = (content: Record<string, unknown>, extra: Partial<RoomEvent> = {}): RoomEvent => ({
  type: "m.room.message",
  event_id: "$e1",
  sender: "@alice:hs",
  content,
  ...extra,
});
const delivery = (fields: Partial<Message>): Delivery => ({
  message: emptyMessage({ username: "<bob> ", ...fields }),
  channel: "#r:hs",
  gateway: "g",
  options: {},
});

describe("matrix inbound", () => {
  it("relays text, notices and emotes; ignores other types", () => {
    assert.equal(inboundMessage(event({ msgtype: "m.text", body: "hi" }), source, options)?.text, "hi");
    assert.equal(inboundMessage(event({ msgtype: "m.notice", body: "n" }), source, options)?.event, "");
    assert.equal(inboundMessage(event({ msgtype: "m.emote", body: "waves" }), source, options)?.event, "user_action");
    assert.equal(inboundMessage(event({ msgtype: "m.location", body: "x" }), source, options), undefined);
    assert.equal(inboundMessage(event({ body: 5 }), source, options), undefined);
    assert.equal(inboundMessage({ ...event({}), type: "m.reaction" }, source, options), undefined);
  });

  it("turns an edit into the original's id with the new text", () => {
    const got = inboundMessage(
      event({
        msgtype: "m.text",
        body: "* new",
        "m.new_content": { msgtype: "m.text", body: "new" },
        "m.relates_to": { rel_type: "m.replace", event_id: "$orig" },
      }),
      source,
      options,
    );
    assert.equal(got?.id, "$orig");
    assert.equal(got?.text, "new");
  });

  it("gives replies their parent and strips the quote fallback unless asked to keep it", () => {
    const reply = event({
      msgtype: "m.text",
      body: "> <@bob:hs> question\n> more\n\nanswer",
      "m.relates_to": { "m.in_reply_to": { event_id: "$p" } },
    });
    const got = inboundMessage(reply, source, options);
    assert.equal(got?.parent_id, "$p");
    assert.equal(got?.text, "answer");
    assert.equal(inboundMessage(reply, source, { ...options, keepQuotedReply: true })?.text, reply.content.body);
    assert.equal(stripQuotedReply("no quote"), "no quote");
  });

  it("gives thread messages the thread root as parent", () => {
    const got = inboundMessage(
      event({
        msgtype: "m.text",
        body: "in thread",
        "m.relates_to": { rel_type: "m.thread", event_id: "$root", "m.in_reply_to": { event_id: "$last" } },
      }),
      source,
      options,
    );
    assert.equal(got?.parent_id, "$root");
  });

  it("turns redactions (top-level or content redacts) into msg_delete and media into a file", () => {
    const top = inboundMessage({ ...event({}), type: "m.room.redaction", redacts: "$x" }, source, options);
    assert.equal(top?.event, "msg_delete");
    assert.equal(top?.id, "$x");
    const v11 = inboundMessage({ ...event({ redacts: "$y" }), type: "m.room.redaction" }, source, options);
    assert.equal(v11?.id, "$y");
    const image = inboundMessage(event({ msgtype: "m.image", body: "cat.png", url: "mxc://hs/abc" }), source, options);
    assert.equal(image?.text, "");
    assert.deepEqual(image?.Extra, {
      file: [
        {
          Name: "cat.png",
          Data: null,
          Comment: "",
          URL: "https://hs/dl/hs/abc",
          Size: 0,
          Avatar: false,
          SHA: "",
          NativeID: "mxc://hs/abc",
        },
      ],
    });
    const captioned = { msgtype: "m.file", body: "the notes", filename: "notes.txt", url: "mxc://hs/n" };
    assert.equal(inboundMessage(event(captioned), source, options)?.text, "the notes");
  });
});

/** Plain text, mass mentions allowed: the event as Matterbridge would send it. */
const PLAIN = { htmlDisable: true, allowMassMentions: true, messageClipped: "<clipped message>" };

describe("matrix code fences", () => {
  const fence = "```";
  it("keeps the text around fences on the same line", () => {
    assert.equal(
      markdownToHtml(`${fence}ls -la${fence} is the command`),
      "<pre><code>ls -la</code></pre> is the command",
    );
    assert.equal(
      markdownToHtml(`run ${fence}rm -rf /${fence} and DO NOT run it`),
      "run <pre><code>rm -rf /</code></pre> and DO NOT run it",
    );
  });

  it("reads blocks on lines of their own, with a language name, and fences at line ends", () => {
    assert.equal(
      markdownToHtml(`before\n${fence}ts\nconst a = 1 < 2;\n${fence}\nafter`),
      "before<pre><code>const a = 1 &lt; 2;</code></pre>after",
    );
    assert.equal(markdownToHtml(`see: ${fence}\nx\ny\n${fence}`), "see: <pre><code>x\ny</code></pre>");
  });

  it("shows an unpaired fence as text, losing nothing", () => {
    assert.equal(markdownToHtml(`a ${fence} b **c**`), "a ``` b <strong>c</strong>");
    assert.equal(markdownToHtml(`${fence}x${fence} then ${fence} alone`), "<pre><code>x</code></pre> then ``` alone");
  });

  // ("word " with its space is never a language name, which is dropped.)
  it("never loses a word of the text, whatever the fences", () => {
    const words = fc.array(fc.constantFrom("word ", fence, " ", "\n", "`", "ts\n", "**"), { maxLength: 40 });
    fc.assert(
      fc.property(words, (parts) => {
        const text = parts.join("");
        const shown = markdownToHtml(text).replace(/<[^>]+>/g, "");
        assert.equal(shown.split("word").length, text.split("word").length);
      }),
      { numRuns: 500 },
    );
  });
});

describe("matrix outbound", () => {
  it("clips a text so that the event stays far under the homeserver's 64 KiB, whatever it holds", () => {
    for (const text of ["a".repeat(200_000), '<&"'.repeat(50_000), "😀".repeat(50_000), "**b** ".repeat(30_000)]) {
      const plan = matrixSend(delivery({ text, parent_id: "$p" }), { ...PLAIN, htmlDisable: false });
      assert.ok(plan.kind === "message");
      const bytes = Buffer.byteLength(JSON.stringify(plan.content));
      assert.ok(bytes < 48_000, `${bytes} bytes`);
      assert.ok(String(plan.content.body).endsWith(" <clipped message>"));
    }
  });

  it("neutralises @room in the body, the HTML and the nick and declares no mentions, unless AllowMassMentions", () => {
    const plan = matrixSend(delivery({ text: "@room look, @Room! not me@room", username: "@room " }), {
      ...PLAIN,
      htmlDisable: false,
      allowMassMentions: false,
    });
    assert.equal(plan.kind, "message");
    if (plan.kind !== "message") return;
    assert.equal(plan.content.body, "@\u200droom @\u200droom look, @\u200dRoom! not me@room");
    assert.doesNotMatch(String(plan.content.formatted_body), /(^|[^\w])@room/i);
    assert.deepEqual(plan.content["m.mentions"], {});
    const allowed = matrixSend(delivery({ text: "@room look" }), PLAIN);
    assert.deepEqual(allowed.kind === "message" && allowed.content, { msgtype: "m.text", body: "<bob> @room look" });
  });

  it("escapes the username and the text in formatted_body, and renders common Markdown", () => {
    const plan = matrixSend(delivery({ text: "a <b> & **bold** `x*y*` [l](https://e.org)" }), {
      ...PLAIN,
      htmlDisable: false,
    });
    assert.equal(plan.kind, "message");
    if (plan.kind !== "message") return;
    assert.equal(plan.content.body, "<bob> a <b> & **bold** `x*y*` [l](https://e.org)");
    assert.equal(
      plan.content.formatted_body,
      '&lt;bob&gt; a &lt;b&gt; &amp; <strong>bold</strong> <code>x*y*</code> <a href="https://e.org">l</a>',
    );
    assert.equal(markdownToHtml("one\ntwo"), "one<br>two");
  });

  it("keeps a username that is HTML, and sends plain text only with HTMLDisable", () => {
    assert.deepEqual(matrixUsername("<b>bob</b>: "), { plain: "bob: ", formatted: "<b>bob</b>: " });
    const plan = matrixSend(delivery({ text: "hi" }), PLAIN);
    assert.deepEqual(plan.kind === "message" && plan.content, { msgtype: "m.text", body: "<bob> hi" });
  });

  it("builds edits, replies, notices, emotes and redactions", () => {
    const edit = matrixSend(delivery({ text: "new", id: "$o" }), PLAIN);
    assert.deepEqual(edit, {
      kind: "message",
      editOf: "$o",
      content: {
        msgtype: "m.text",
        body: "* <bob> new",
        "m.new_content": { msgtype: "m.text", body: "<bob> new" },
        "m.relates_to": { rel_type: "m.replace", event_id: "$o" },
      },
    });
    const reply = matrixSend(delivery({ text: "r", parent_id: "$p" }), PLAIN);
    assert.deepEqual(reply.kind === "message" && reply.content["m.relates_to"], {
      "m.in_reply_to": { event_id: "$p" },
    });
    const orphan = matrixSend(delivery({ text: "r", parent_id: "msg-parent-not-found" }), PLAIN);
    assert.equal(orphan.kind === "message" && orphan.content["m.relates_to"], undefined);
    const notice = matrixSend(delivery({ text: "x joins", event: "join_leave" }), PLAIN);
    assert.equal(notice.kind === "message" && notice.content.msgtype, "m.notice");
    const emote = matrixSend(delivery({ text: "waves", event: "user_action" }), PLAIN);
    assert.equal(emote.kind === "message" && emote.content.msgtype, "m.emote");
    assert.deepEqual(matrixSend(delivery({ event: "msg_delete", id: "$d" }), PLAIN), {
      kind: "redact",
      eventId: "$d",
    });
    assert.deepEqual(matrixSend(delivery({ event: "msg_delete" }), PLAIN), { kind: "nothing" });
  });
});
