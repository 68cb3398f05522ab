// The mumble account's inbound decoding without a server: arbitrary bytes cut into frames and decoded never throw
// (a frame that is not valid protobuf is `malformed`), frames survive any chunking, HTML becomes plain text and
// plain text escaped HTML whose cost is what murmurd counts, and the user list turns states into joins and leaves.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TextMessage, UserState } from "@tf2pickup-org/mumble-protocol";
import fc from "fast-check";
import { measure } from "../src/accounts/fit-text.ts";
import { encodeFrame, FrameReader, FrameTooLarge, MAX_FRAME, PacketType } from "../src/accounts/mumble/frames.ts";
import { htmlCost, htmlToText, textToHtml } from "../src/accounts/mumble/html-text.ts";
import { decodeFrame } from "../src/accounts/mumble/packets.ts";
import { Users } from "../src/accounts/mumble/users.ts";

describe("mumble frames", () => {
  it("decodes any payload of any type without throwing", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.uint8Array({ maxLength: 200 }), (type, payload) => {
        const inbound = decodeFrame({ type, payload });
        assert.ok(typeof inbound.kind === "string");
      }),
      { numRuns: 2000 },
    );
  });

  it("calls a truncated TextMessage malformed, and a UserState without a session too", () => {
    const text = TextMessage.toBinary(TextMessage.create({ actor: 3, channelId: [1], message: "hello there" }));
    const cut = decodeFrame({ type: PacketType.TextMessage, payload: text.subarray(0, text.length - 3) });
    assert.equal(cut.kind, "malformed");
    const state = decodeFrame({
      type: PacketType.UserState,
      payload: UserState.toBinary(UserState.create({ name: "x" })),
    });
    assert.deepEqual(state, { kind: "malformed", reason: "UserState without session" });
  });

  it("hands out the same frames whatever the stream's chunking", () => {
    const frame = fc.record({ type: fc.integer({ min: 0, max: 65535 }), payload: fc.uint8Array({ maxLength: 64 }) });
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 8 }), fc.array(fc.nat(40), { maxLength: 10 }), (frames, cuts) => {
        const stream = Buffer.concat(frames.map((f) => encodeFrame(f.type, f.payload)));
        const reader = new FrameReader();
        const got: { type: number; payload: Uint8Array }[] = [];
        let offset = 0;
        for (const cut of cuts) {
          got.push(...reader.push(stream.subarray(offset, offset + cut)));
          offset = Math.min(stream.length, offset + cut);
        }
        got.push(...reader.push(stream.subarray(offset)));
        assert.deepEqual(
          got.map((f) => ({ type: f.type, payload: Buffer.from(f.payload) })),
          frames.map((f) => ({ type: f.type, payload: Buffer.from(f.payload) })),
        );
      }),
    );
  });

  it("refuses a frame announcing more than it will buffer", () => {
    const header = Buffer.alloc(6);
    header.writeUInt32BE(MAX_FRAME + 1, 2);
    assert.throws(() => new FrameReader().push(header), FrameTooLarge);
  });
});

describe("mumble HTML", () => {
  it("makes Mumble's HTML plain", () => {
    assert.equal(
      htmlToText("<p>a <b>bold</b>&nbsp;word<br />next &lt;line&gt; &#128075;</p>"),
      "a bold word\nnext <line> 👋",
    );
    assert.equal(
      htmlToText('see <a href="https://x.test/?a=1&amp;b=2">this</a>'),
      "see this (https://x.test/?a=1&b=2)",
    );
    assert.equal(htmlToText('<a href="https://x.test/">https://x.test/</a>'), "https://x.test/");
    assert.equal(htmlToText('look <img src="data:image/png;base64,AAAA" />'), "look [image]");
    assert.equal(htmlToText("plain\ntext from a bot"), "plain\ntext from a bot");
    assert.equal(htmlToText("&bogus; &#xD800; &amp"), "&bogus; &#xD800; &amp");
  });

  it("escapes text so that it reads back the same, and costs what the escaped HTML measures", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const html = textToHtml(text);
        assert.doesNotMatch(html, /<(?!br>)/);
        if (!text.includes("\r")) assert.equal(measure(text, htmlCost), html.length);
      }),
    );
    assert.equal(htmlToText(textToHtml("1 < 2 & 3 > 2\nnext")), "1 < 2 & 3 > 2\nnext");
  });
});

describe("mumble users", () => {
  it("turns arrivals in and departures from the watched channel into joins and leaves", () => {
    const users = new Users();
    assert.equal(users.update(1, { name: "alice", channelId: 0 }, 5), undefined);
    assert.deepEqual(users.update(1, { channelId: 5 }, 5), { name: "alice", what: "joins" });
    assert.deepEqual(users.update(1, { channelId: 2 }, 5), { name: "alice", what: "leaves" });
    assert.deepEqual(users.update(2, { name: "bob", channelId: 5 }, 5), { name: "bob", what: "joins" });
    assert.equal(users.update(2, { name: "bobby" }, 5), undefined);
    assert.deepEqual(users.remove(2, 5), { name: "bobby", what: "leaves" });
    assert.equal(users.remove(1, 5), undefined);
    assert.equal(users.remove(99, 5), undefined);
  });
});
