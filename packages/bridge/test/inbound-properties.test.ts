// Property-based checks of each protocol's inbound reading: arbitrary JSON, and shapes that are nearly right (each
// field either of its type or anything else), fed to the functions that turn a platform's event into messages. No
// throw may escape, and whatever comes out is a well-formed message that came from something that was a message.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import xml from "@xmpp/xml";
import fc from "fast-check";
import { readRoomEvent, readSync } from "../src/accounts/matrix/event-shape.ts";
import { inboundMessage } from "../src/accounts/matrix/inbound.ts";
import { interpret as interpretMattermost } from "../src/accounts/mattermost/inbound.ts";
import { postOfEvent } from "../src/accounts/mattermost/post-shape.ts";
import { readEvent } from "../src/accounts/slack/event-shape.ts";
import { interpret as interpretSlack } from "../src/accounts/slack/inbound.ts";
import { entitiesToMarkdown, presenceMessages, textMessage } from "../src/accounts/telegram/inbound.ts";
import { readUpdate, type TgEntity } from "../src/accounts/telegram/update-shape.ts";
import { parseGroupchat, parseOccupantPresence } from "../src/accounts/xmpp/incoming.ts";
import { NS } from "../src/accounts/xmpp/namespaces.ts";
import { MESSAGE_FIELDS, type Message } from "../src/message.ts";

const RUNS = { numRuns: 500 };

/** The field's right type, or any JSON in its place (a misbehaving server's version of it). */
function nearly<T>(right: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: right }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
}

/** Each message has its 13 fields with the types the JSON codec writes. */
export function assertWellFormed(messages: readonly Message[]): void {
  for (const message of messages) {
    for (const field of MESSAGE_FIELDS) {
      if (field === "Extra") continue;
      assert.equal(typeof message[field], "string", `${field} is a string in ${JSON.stringify(message)}`);
    }
  }
}

describe("telegram inbound reading", () => {
  const user = fc.record(
    { id: nearly(fc.integer()), first_name: nearly(fc.string()), username: nearly(fc.string()) },
    { requiredKeys: [] },
  );
  const entity = fc.record({
    type: nearly(fc.constantFrom("bold", "italic", "code", "pre", "text_link", "mention", "toString")),
    offset: nearly(fc.integer({ min: -2, max: 30 })),
    length: nearly(fc.integer({ min: -2, max: 30 })),
    url: nearly(fc.webUrl()),
  });
  const message = fc.record(
    {
      message_id: nearly(fc.nat()),
      chat: nearly(fc.record({ id: nearly(fc.integer()), title: nearly(fc.string()) }, { requiredKeys: [] })),
      from: nearly(user),
      sender_chat: nearly(fc.record({ id: nearly(fc.integer()), title: nearly(fc.string()) })),
      text: nearly(fc.string()),
      caption: nearly(fc.string()),
      entities: nearly(fc.array(nearly(entity), { maxLength: 6 })),
      reply_to_message: nearly(fc.record({ message_id: fc.nat(), chat: fc.record({ id: fc.integer() }) })),
      forward_origin: nearly(fc.record({ type: nearly(fc.constantFrom("user", "hidden_user", "chat", "channel")) })),
      new_chat_members: nearly(fc.array(nearly(user), { maxLength: 3 })),
      left_chat_member: nearly(user),
      is_topic_message: nearly(fc.boolean()),
      message_thread_id: nearly(fc.nat()),
    },
    { requiredKeys: [] },
  );
  const update = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record(
      {
        update_id: nearly(fc.nat()),
        message: nearly(message),
        edited_message: nearly(message),
        channel_post: nearly(message),
      },
      { requiredKeys: [] },
    ),
  );
  const settings = {
    UseFirstName: false,
    UseFullName: false,
    QuoteDisable: false,
    QuoteFormat: "",
    QuoteLengthLimit: 10,
    EditSuffix: "",
  };

  it("never throws, and relays only what was a message", () => {
    fc.assert(
      fc.property(update, (raw) => {
        const read = readUpdate(raw);
        if (read.kind !== "message") return;
        const relayed = [...presenceMessages(read.message, "c")];
        const text = textMessage(read.message, "c", settings, read.edited);
        if (text !== undefined) relayed.push(text);
        assertWellFormed(relayed);
        for (const relayedMessage of relayed) assert.notEqual(relayedMessage.username, "", "every message has a nick");
      }),
      RUNS,
    );
  });

  it("reads entities in one pass with the same result as inserting each mark into the text", () => {
    const entities = fc.array(
      fc.record({
        type: fc.constantFrom("bold", "italic", "code", "pre", "text_link", "strikethrough", "mention"),
        offset: fc.integer({ min: -1, max: 25 }),
        length: fc.integer({ min: -1, max: 25 }),
        url: fc.constant("https://x.test"),
      }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), entities, (text, list) => {
        assert.equal(entitiesToMarkdown(text, list), insertEachMark(text, list));
      }),
      RUNS,
    );
  });

  it("converts 40,000 characters with an entity on every other one", () => {
    const text = "ab".repeat(20_000);
    const list: TgEntity[] = [];
    for (let offset = 0; offset < text.length; offset += 2) list.push({ type: "bold", offset, length: 1 });
    assert.equal(entitiesToMarkdown(text, list), "*a*b".repeat(20_000));
  });
});

describe("mattermost inbound reading", () => {
  const post = fc.record(
    {
      id: nearly(fc.constantFrom("p1", "p2", "")),
      user_id: nearly(fc.constantFrom("u1", "bot", "")),
      channel_id: nearly(fc.constantFrom("c1", "")),
      message: nearly(fc.string()),
      root_id: nearly(fc.string()),
      type: nearly(fc.constantFrom("", "me", "system_join_channel", "system_header_change")),
      props: nearly(fc.record({ from_switchboard: nearly(fc.boolean()), override_username: nearly(fc.string()) })),
      file_ids: nearly(fc.array(nearly(fc.string()), { maxLength: 3 })),
      update_at: nearly(fc.nat()),
    },
    { requiredKeys: [] },
  );
  const data = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({
      post: fc.oneof(
        post.map((value) => JSON.stringify(value)),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    }),
  );
  const change = fc.constantFrom("posted" as const, "edited" as const, "deleted" as const);

  it("never throws, relays only posts, and never the bridge's own", () => {
    fc.assert(
      fc.property(data, change, (raw, kind) => {
        const read = postOfEvent(raw);
        if (typeof read === "string") return;
        const inbound = interpretMattermost(read, kind, "bot", {
          editDisable: false,
          postedByUs: (id) => id === "p2",
        });
        const own = read.user_id === "bot" || read.props?.from_switchboard === true || read.id === "p2";
        if (own) assert.deepEqual(inbound, { kind: "ignore" });
        if (inbound.kind === "text") assert.equal(typeof inbound.text, "string");
      }),
      RUNS,
    );
  });
});

describe("slack inbound reading", () => {
  const message = fc.record(
    {
      type: nearly(fc.constantFrom("message", "reaction_added")),
      subtype: nearly(
        fc.constantFrom("bot_message", "me_message", "message_changed", "message_deleted", "channel_join"),
      ),
      channel: nearly(fc.constantFrom("C1")),
      user: nearly(fc.constantFrom("U1", "UBOT")),
      bot_id: nearly(fc.constantFrom("B1", "BOURS")),
      app_id: nearly(fc.constantFrom("A1", "AOURS")),
      text: nearly(fc.string()),
      ts: nearly(fc.constantFrom("1.1", "2.2", "9.9")),
      thread_ts: nearly(fc.constantFrom("1.1", "0.5")),
      deleted_ts: nearly(fc.constantFrom("1.1", "9.9")),
      edited: nearly(fc.record({ user: nearly(fc.string()), ts: nearly(fc.string()) })),
      files: nearly(fc.array(nearly(fc.record({ permalink: nearly(fc.webUrl()) })), { maxLength: 2 })),
    },
    { requiredKeys: [] },
  );
  const event = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    message,
    fc.record({ type: fc.constant("message"), subtype: fc.constant("message_changed"), message: nearly(message) }),
    fc.record({
      type: fc.constant("message"),
      subtype: fc.constant("message_deleted"),
      deleted_ts: nearly(fc.constantFrom("1.1", "9.9")),
      previous_message: nearly(message),
    }),
  );
  const self = { userId: "UBOT", botId: "BOURS", appId: "AOURS", posted: (ts: string) => ts === "9.9" };
  const ours = (value: { user?: string; bot_id?: string; app_id?: string; ts?: string } | undefined) =>
    value !== undefined &&
    (value.user === "UBOT" || value.bot_id === "BOURS" || value.app_id === "AOURS" || value.ts === "9.9");

  it("never throws, relays only messages, and never the app's own", () => {
    fc.assert(
      fc.property(event, (raw) => {
        const read = readEvent(raw);
        if (typeof read === "string") return;
        const inbound = interpretSlack(read, self, false);
        if (read.type !== "message") assert.deepEqual(inbound, { kind: "ignore" });
        const judged = read.subtype === "message_changed" ? read.message : read;
        if (read.subtype !== "message_deleted" && ours(judged)) assert.deepEqual(inbound, { kind: "ignore" });
        if (inbound.kind === "text") assert.equal(typeof inbound.text, "string");
      }),
      RUNS,
    );
  });
});

describe("matrix inbound reading", () => {
  const content = fc.record(
    {
      msgtype: nearly(fc.constantFrom("m.text", "m.emote", "m.image", "m.notice")),
      body: nearly(fc.string()),
      url: nearly(fc.constantFrom("mxc://hs/abc", "https://x")),
      redacts: nearly(fc.string()),
      "m.new_content": nearly(fc.record({ msgtype: nearly(fc.constant("m.text")), body: nearly(fc.string()) })),
      "m.relates_to": nearly(
        fc.record(
          {
            rel_type: nearly(fc.constantFrom("m.replace", "m.thread")),
            event_id: nearly(fc.string()),
            "m.in_reply_to": nearly(fc.record({ event_id: nearly(fc.string()) })),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  );
  const event = fc.record(
    {
      type: nearly(fc.constantFrom("m.room.message", "m.room.redaction", "m.room.member")),
      sender: nearly(fc.constantFrom("@a:hs", "@b:hs")),
      event_id: nearly(fc.constantFrom("$1", "$2")),
      content: nearly(content),
      redacts: nearly(fc.string()),
      state_key: nearly(fc.string()),
    },
    { requiredKeys: [] },
  );
  const sync = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record({
      next_batch: nearly(fc.constantFrom("s1", "s2")),
      rooms: nearly(
        fc.record({
          join: nearly(
            fc.dictionary(
              fc.constantFrom("!r:hs", "__proto__"),
              nearly(fc.record({ timeline: nearly(fc.record({ events: nearly(fc.array(nearly(event))) })) })),
            ),
          ),
        }),
      ),
    }),
  );
  const source = { channel: "#r:hs", username: "a", userid: "@a:hs", avatar: "" };

  it("never throws, and relays only room messages and redactions", () => {
    fc.assert(
      fc.property(sync, (raw) => {
        const read = readSync(raw);
        if (typeof read === "string") return;
        const relayed: Message[] = [];
        for (const room of read.joined) {
          for (const entry of room.timeline) {
            const parsed = readRoomEvent(entry);
            if (typeof parsed === "string") continue;
            const message = inboundMessage(parsed, source, { keepQuotedReply: false, mediaUrl: (mxc) => mxc });
            if (message === undefined) continue;
            assert.ok(["m.room.message", "m.room.redaction"].includes(parsed.type), "only messages and redactions");
            relayed.push(message);
          }
        }
        assertWellFormed(relayed);
      }),
      RUNS,
    );
  });
});

describe("xmpp inbound reading", () => {
  type Tree = { name: string; attrs: Record<string, string>; children: (Tree | string)[] };
  const attrs = fc.dictionary(
    fc.constantFrom("type", "from", "id", "xmlns", "by", "code", "nick"),
    fc.oneof(
      fc.constantFrom("groupchat", "error", "unavailable", "room@muc.hs/Alice", "room@muc.hs", "110", "303"),
      fc.constantFrom(NS.sid, NS.correction, NS.mucUser, NS.stanzas, NS.delay),
      fc.string({ maxLength: 8 }),
    ),
  );
  const name = fc.constantFrom(
    "message",
    "presence",
    "body",
    "subject",
    "x",
    "status",
    "item",
    "error",
    "stanza-id",
    "origin-id",
    "replace",
    "delay",
  );
  const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.record({
      name,
      attrs,
      children: fc.array(fc.oneof({ depthSize: "small" }, fc.string({ maxLength: 10 }), tie("tree")), {
        maxLength: 4,
      }),
    }),
  }));
  const element = (node: Tree): ReturnType<typeof xml> =>
    xml(node.name, node.attrs, ...node.children.map((child) => (typeof child === "string" ? child : element(child))));

  it("never throws on any stanza, and reads a message only from a groupchat message with a sender", () => {
    fc.assert(
      fc.property(tree, (node) => {
        const stanza = element(node);
        const groupchat = parseGroupchat(stanza);
        parseOccupantPresence(stanza);
        if (groupchat === undefined) return;
        assert.equal(stanza.name, "message");
        assert.equal(stanza.attrs.type, "groupchat");
        assert.equal(typeof groupchat.text, "string");
        assert.ok(groupchat.room !== "", "a message names its room");
      }),
      RUNS,
    );
  });
});

/** The former conversion, one copy of the text per mark: the reference the one-pass conversion must match. */
function insertEachMark(text: string, entities: readonly TgEntity[]): string {
  const marks: Record<string, [string, string]> = {
    bold: ["*", "*"],
    italic: ["_", "_"],
    strikethrough: ["~", "~"],
    code: ["`", "`"],
    pre: ["```\n", "\n```"],
  };
  const inserts: { at: number; text: string; order: number }[] = [];
  entities.forEach((entity, index) => {
    const end = entity.offset + entity.length;
    if (entity.offset < 0 || entity.length < 0 || end > text.length) return;
    if (entity.type === "text_link") {
      if (entity.url) inserts.push({ at: end, text: ` (${entity.url})`, order: -index });
      return;
    }
    const pair = marks[entity.type];
    if (pair === undefined) return;
    inserts.push({ at: entity.offset, text: pair[0], order: index }, { at: end, text: pair[1], order: -index });
  });
  inserts.sort((a, b) => b.at - a.at || a.order - b.order);
  let out = text;
  for (const insert of inserts) out = out.slice(0, insert.at) + insert.text + out.slice(insert.at);
  return out;
}
