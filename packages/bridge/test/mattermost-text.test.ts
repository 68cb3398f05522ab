// Mattermost posts in and out: which posts are relayed and as what (text, action, reply, edit, delete, join), the
// Server key read as Matterbridge reads it, and outgoing text and props (the nick, the icon, clipping), with any text.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { interpret, type MattermostPost } from "../src/accounts/mattermost/inbound.ts";
import { MATTERMOST_MAX_TEXT, outboundText, postProps } from "../src/accounts/mattermost/outbound.ts";
import { serverUrl } from "../src/accounts/mattermost/server-url.ts";
import type { Delivery } from "../src/core/account.ts";
import { emptyMessage } from "../src/message.ts";

const post = (fields: Partial<MattermostPost>): MattermostPost => ({
  id: "p1",
  user_id: "u1",
  channel_id: "c1",
  message: "hi",
  ...fields,
});
const options = { editDisable: false };
const delivery = (fields: Parameters<typeof emptyMessage>[0]): Delivery => ({
  message: emptyMessage({ account: "irc.net", protocol: "irc", ...fields }),
  channel: "general",
  gateway: "g",
  options: {},
});
const settings = {
  PrefixMessagesWithNick: false,
  IconURL: "",
  MessageClipped: "<clipped message>",
  AllowMassMentions: false,
};

describe("Mattermost posts", () => {
  it("reads posts as texts, actions, replies, edits, deletes and joins", () => {
    const withFile = post({ root_id: "r1", file_ids: ["f1"], files: [{ id: "f1", name: "cat.png", size: 3 }] });
    assert.deepEqual(interpret(withFile, "posted", "bot", options), {
      kind: "text",
      id: "p1",
      parentId: "r1",
      text: "hi",
      event: "",
      userId: "u1",
      postedAs: undefined,
      edited: false,
      files: [{ id: "f1", name: "cat.png", size: 3 }],
    });
    const action = interpret(post({ message: "*waves*" }), "posted", "bot", options);
    assert.ok(action.kind === "text" && action.text === "waves" && action.event === "user_action");
    const bold = interpret(post({ message: "**loud**" }), "posted", "bot", options);
    assert.ok(bold.kind === "text" && bold.event === "");
    const me = interpret(post({ type: "me", message: "dances" }), "posted", "bot", options);
    assert.ok(me.kind === "text" && me.event === "user_action");
    const edited = interpret(post({}), "edited", "bot", options);
    assert.ok(edited.kind === "text" && edited.edited);
    assert.deepEqual(interpret(post({}), "edited", "bot", { ...options, editDisable: true }), { kind: "ignore" });
    assert.deepEqual(interpret(post({}), "deleted", "bot", options), { kind: "delete", id: "p1" });
    const joined = interpret(
      post({ type: "system_join_channel", message: "ana joined the channel." }),
      "posted",
      "bot",
      options,
    );
    assert.ok(joined.kind === "text" && joined.event === "join_leave");
    assert.deepEqual(interpret(post({ type: "system_header_change" }), "posted", "bot", options), { kind: "ignore" });
    assert.deepEqual(interpret(post({ user_id: "bot" }), "posted", "bot", options), { kind: "ignore" });
    const hook = interpret(post({ props: { override_username: "ci" } }), "posted", "bot", options);
    assert.ok(hook.kind === "text" && hook.postedAs === "ci");
  });

  it("reads Server as Matterbridge does, and full URLs too", () => {
    assert.equal(serverUrl("chat.example.org", false), "https://chat.example.org");
    assert.equal(serverUrl("chat.example.org:8065", true), "http://chat.example.org:8065");
    assert.equal(serverUrl("https://chat.example.org/", true), "https://chat.example.org");
  });

  it("writes actions, files, the nick, props and clipped text", () => {
    assert.equal(outboundText(delivery({ text: "waves", event: "user_action" }), settings), "*waves*");
    const prefixed = { ...settings, PrefixMessagesWithNick: true };
    assert.equal(outboundText(delivery({ text: "hi", username: "[irc] <ivan> " }), prefixed), "[irc] <ivan> hi");
    assert.deepEqual(postProps(delivery({ username: "[irc] <ivan> " }), prefixed), { from_switchboard: true });
    assert.deepEqual(postProps(delivery({ username: "ivan", avatar: "https://a.example/i.png" }), settings), {
      from_switchboard: true,
      override_username: "ivan",
      override_icon_url: "https://a.example/i.png",
    });
  });

  it("neutralises @all, @channel and @here (text and prefixed nick) unless AllowMassMentions", () => {
    const text = "@all @Channel, (@here) mail@here.org @channel-fan @alice";
    const zwj = "\u200d";
    assert.equal(
      outboundText(delivery({ text }), settings),
      `@${zwj}all @${zwj}Channel, (@${zwj}here) mail@here.org @channel-fan @alice`,
    );
    const prefixed = { ...settings, PrefixMessagesWithNick: true };
    assert.equal(outboundText(delivery({ text: "hi", username: "@here: " }), prefixed), `@${zwj}here: hi`);
    assert.equal(outboundText(delivery({ text }), { ...settings, AllowMassMentions: true }), text);
  });

  it("never sends more than Mattermost takes, nor half a surrogate pair", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: MATTERMOST_MAX_TEXT - 5, maxLength: MATTERMOST_MAX_TEXT + 50 }),
        (text) => {
          const out = outboundText(delivery({ text }), settings);
          assert.ok(out.length <= MATTERMOST_MAX_TEXT);
          if (text.length > MATTERMOST_MAX_TEXT) assert.ok(out.endsWith(" <clipped message>"));
          assert.ok(!/[\uD800-\uDBFF] <clipped message>$/.test(out));
        },
      ),
      { numRuns: 30 },
    );
  });
});
