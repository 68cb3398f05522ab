// XMPP stanza helpers: what the bridge sends to a MUC and how it reads what a MUC sends.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import xml from "@xmpp/xml";
import fc from "fast-check";
import { isOwnEcho, SentIds } from "../src/accounts/xmpp/echo.ts";
import { HistoryReplay } from "../src/accounts/xmpp/history.ts";
import { meAction, parseGroupchat, parseOccupantPresence } from "../src/accounts/xmpp/incoming.ts";
import { NS } from "../src/accounts/xmpp/namespaces.ts";
import { groupchatMessage, mucJoinPresence, mucLeavePresence, xmlSafeText } from "../src/accounts/xmpp/outgoing.ts";

const ROOM = "general@conference.localhost";

describe("outgoing stanzas", () => {
  it("a groupchat message has a body, an id and the same origin-id", () => {
    assert.equal(
      groupchatMessage({ room: ROOM, text: "hi <&>", id: "m1" }).toString(),
      `<message to="${ROOM}" type="groupchat" id="m1"><body>hi &lt;&amp;&gt;</body><origin-id xmlns="${NS.sid}" id="m1"/></message>`,
    );
  });

  it("a correction names the replaced message (XEP-0308)", () => {
    const stanza = groupchatMessage({ room: ROOM, text: "fixed", id: "m2", replaceId: "m1" });
    assert.equal(stanza.getChild("replace", NS.correction)?.attrs.id, "m1");
    assert.equal(stanza.getChildText("body"), "fixed");
  });

  it("the join presence asks for no history and carries the password when there is one", () => {
    assert.equal(
      mucJoinPresence({ room: ROOM, nick: "bridge" }).toString(),
      `<presence to="${ROOM}/bridge"><x xmlns="${NS.muc}"><history maxstanzas="0"/></x></presence>`,
    );
    const locked = mucJoinPresence({ room: ROOM, nick: "bridge", password: "s3cret", maxStanzas: 5 });
    assert.equal(locked.getChild("x", NS.muc)?.getChildText("password"), "s3cret");
    assert.equal(locked.getChild("x", NS.muc)?.getChild("history")?.attrs.maxstanzas, "5");
  });

  it("the leave presence is unavailable", () => {
    assert.equal(
      mucLeavePresence(ROOM, "bridge", "bye").toString(),
      `<presence to="${ROOM}/bridge" type="unavailable"><status>bye</status></presence>`,
    );
  });

  it("text that XML cannot carry is removed, everything else kept", () => {
    assert.equal(xmlSafeText("a\x00b\x07c\td\ne\uffff👋\ud800"), "abc\td\ne👋");
  });

  it("property: a message body always survives as valid XML text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (text) => {
        const body = groupchatMessage({ room: ROOM, text, id: "x" }).getChildText("body") ?? "";
        // biome-ignore lint/suspicious/noControlCharactersInRegex: checking that no forbidden character is left
        assert.doesNotMatch(body, /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/);
        assert.equal(xmlSafeText(body), body);
      }),
    );
  });
});

describe("parseGroupchat", () => {
  const message = (attrs: Record<string, string>, ...children: ReturnType<typeof xml>[]) =>
    xml("message", { type: "groupchat", from: `${ROOM}/Alice`, ...attrs }, ...children);

  it("reads room, nick, text, ids and a correction", () => {
    const parsed = parseGroupchat(
      message(
        { id: "abc" },
        xml("body", {}, "hello"),
        xml("origin-id", { xmlns: NS.sid, id: "origin" }),
        xml("stanza-id", { xmlns: NS.sid, id: "sid", by: ROOM }),
        xml("stanza-id", { xmlns: NS.sid, id: "spoofed", by: "someone@else" }),
        xml("replace", { xmlns: NS.correction, id: "old" }),
      ),
    );
    assert.deepEqual(parsed, {
      room: ROOM,
      nick: "Alice",
      text: "hello",
      id: "abc",
      originId: "origin",
      stanzaId: "sid",
      replaceId: "old",
      subject: undefined,
      delayed: false,
      oob: [],
    });
  });

  it("marks delayed messages (XEP-0203 and the legacy XEP-0091)", () => {
    const stamp = "2026-01-01T00:00:00Z";
    assert.equal(
      parseGroupchat(message({}, xml("body", {}, "old"), xml("delay", { xmlns: NS.delay, stamp })))?.delayed,
      true,
    );
    assert.equal(
      parseGroupchat(message({}, xml("body", {}, "old"), xml("x", { xmlns: NS.legacyDelay, stamp })))?.delayed,
      true,
    );
  });

  it("reads a subject-only message", () => {
    const parsed = parseGroupchat(xml("message", { type: "groupchat", from: ROOM }, xml("subject", {}, "topic")));
    assert.equal(parsed?.subject, "topic");
    assert.equal(parsed?.nick, "");
    assert.equal(parsed?.text, "");
  });

  it("ignores errors, other types, and messages with neither body nor subject", () => {
    assert.equal(parseGroupchat(message({ type: "error" }, xml("body", {}, "x"))), undefined);
    assert.equal(parseGroupchat(message({ type: "chat" }, xml("body", {}, "x"))), undefined);
    assert.equal(
      parseGroupchat(message({}, xml("active", { xmlns: "http://jabber.org/protocol/chatstates" }))),
      undefined,
    );
    assert.equal(parseGroupchat(xml("message", { type: "groupchat" }, xml("body", {}, "no from"))), undefined);
  });

  it("turns /me into an action", () => {
    assert.deepEqual(meAction("/me waves"), { text: "waves", action: true });
    assert.deepEqual(meAction("/meh"), { text: "/meh", action: false });
  });
});

describe("parseOccupantPresence", () => {
  const userX = (codes: string[], item: Record<string, string> = {}) =>
    xml("x", { xmlns: NS.mucUser }, xml("item", item), ...codes.map((code) => xml("status", { code })));

  it("recognises our own join (status 110)", () => {
    const parsed = parseOccupantPresence(xml("presence", { from: `${ROOM}/bridge` }, userX(["110", "201"])));
    assert.deepEqual(parsed, {
      room: ROOM,
      nick: "bridge",
      kind: "available",
      self: true,
      newNick: undefined,
      statusCodes: ["110", "201"],
    });
  });

  it("reads a nick change and a leave", () => {
    const change = parseOccupantPresence(
      xml("presence", { from: `${ROOM}/old`, type: "unavailable" }, userX(["303"], { nick: "new" })),
    );
    assert.equal(change?.kind, "unavailable");
    assert.equal(change?.newNick, "new");
  });

  it("reads a join error's condition", () => {
    const error = xml(
      "presence",
      { from: `${ROOM}/bridge`, type: "error" },
      xml("error", { type: "cancel" }, xml("conflict", { xmlns: NS.stanzas })),
    );
    assert.equal(parseOccupantPresence(error)?.error, "conflict");
  });

  it("ignores presence that is not from an occupant", () => {
    assert.equal(parseOccupantPresence(xml("presence", { from: "alice@localhost/phone" })), undefined);
    assert.equal(parseOccupantPresence(xml("presence", { from: "localhost" })), undefined);
  });
});

describe("HistoryReplay", () => {
  it("treats everything between our join and the subject as replay, then only delayed messages", () => {
    const replay = new HistoryReplay();
    replay.joining(ROOM);
    assert.equal(replay.isReplay({ room: ROOM, delayed: true }), true);
    assert.equal(replay.isReplay({ room: ROOM, delayed: false }), true, "no stamp, but before the subject");
    assert.equal(
      replay.isReplay({ room: ROOM, delayed: false, subject: "topic" }),
      true,
      "the subject ends the replay",
    );
    assert.equal(replay.isReplay({ room: ROOM, delayed: false }), false);
    assert.equal(
      replay.isReplay({ room: ROOM, delayed: false, subject: "changed" }),
      false,
      "a later subject is a change",
    );
    assert.equal(replay.isReplay({ room: ROOM, delayed: true }), true);
  });

  it("starts over after forget (a rejoin replays again)", () => {
    const replay = new HistoryReplay();
    replay.joining(ROOM);
    replay.forget();
    assert.equal(replay.isReplay({ room: ROOM, delayed: false }), false);
    replay.joining(ROOM);
    assert.equal(replay.isJoining(ROOM), true);
  });
});

describe("isOwnEcho", () => {
  it("recognises our nick or an id we sent", () => {
    const sent = new SentIds();
    sent.add("m1");
    assert.equal(isOwnEcho({ nick: "bridge" }, "bridge", sent), true);
    assert.equal(isOwnEcho({ nick: "other", originId: "m1" }, "bridge", sent), true);
    assert.equal(isOwnEcho({ nick: "other", id: "m1" }, "bridge", sent), true);
    assert.equal(isOwnEcho({ nick: "other", id: "m2" }, "bridge", sent), false);
    assert.equal(isOwnEcho({ nick: "" }, "", sent), false);
  });

  it("SentIds keeps only the most recent ids", () => {
    const sent = new SentIds(2);
    for (const id of ["a", "b", "c"]) sent.add(id);
    assert.equal(sent.has("a"), false);
    assert.equal(sent.has("c"), true);
    assert.equal(sent.size, 2);
  });
});
