// The Telegram Bot API simulator, validated with the real client library (grammy, unmodified): its long-poll bot
// loop receives what human users post, edit and reply; its API calls land in the chat as the users see it; the
// platform's errors (wrong token, unknown method, bad markup, rate limit, refused chat) reach it as GrammyErrors
// with the platform's codes, texts and retry_after; a cut connection surfaces as the library's HttpError.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Api, Bot, type Context, GrammyError, HttpError } from "grammy";
import type { Message } from "grammy/types";
import { Inbox, startTelegramSimulator, suiteTeardown, withTimeout } from "../src/index.ts";

const teardown = suiteTeardown();
const quiet = { log: () => {} };

/** A grammy bot polling the simulator with the library's own loop; stopped at teardown. */
function startBot(apiRoot: string, token: string): { bot: Bot; seen: Inbox<Context["update"]> } {
  const bot = new Bot(token, { client: { apiRoot } });
  const seen = new Inbox<Context["update"]>();
  bot.on(["message", "edited_message", "channel_post"], (context) => {
    seen.push(context.update);
  });
  bot.catch(() => {});
  void bot.start({ timeout: 5 });
  teardown.after(() => bot.stop());
  return { bot, seen };
}

describe("Telegram Bot API simulator through grammy", () => {
  it("delivers posts, replies, edits and topic messages to the library's polling loop", async () => {
    const tg = await startTelegramSimulator(teardown, quiet);
    const relay = tg.createBot({ username: "relay_bot" });
    const alice = tg.createUser({ first_name: "Alice", last_name: "Liddell", username: "alice" });
    const chat = tg.createChat({ title: "Lobby", forum: true, members: [relay, alice] });
    const { bot, seen } = startBot(tg.apiRoot, relay.token);

    const first = alice.say(chat, "hello *there*");
    const update = await seen.waitFor((u) => u.message?.message_id === first, { what: "the post" });
    assert.equal(update.message?.text, "hello *there*");
    assert.equal(update.message?.from?.username, "alice");
    assert.equal(update.message?.chat.id, chat);
    assert.equal(update.message?.chat.type, "supergroup");
    assert.ok(update.update_id > 0);

    alice.say(chat, "a reply", { replyTo: first });
    const reply = await seen.waitFor((u) => u.message?.text === "a reply", { what: "the reply" });
    assert.equal(reply.message?.reply_to_message?.message_id, first);
    assert.equal(reply.message?.reply_to_message?.text, "hello *there*");

    alice.edit(chat, first, "hello again");
    const edit = await seen.waitFor((u) => u.edited_message !== undefined, { what: "the edit" });
    assert.equal(edit.edited_message?.message_id, first);
    assert.equal(edit.edited_message?.text, "hello again");
    assert.equal(typeof edit.edited_message?.edit_date, "number");

    const topic = alice.createTopic(chat, "Off topic");
    alice.say(chat, "in a topic", { topic });
    const inTopic = await seen.waitFor((u) => u.message?.text === "in a topic", { what: "the topic message" });
    assert.equal(inTopic.message?.message_thread_id, topic);
    assert.equal(inTopic.message?.is_topic_message, true);
    assert.equal(inTopic.message?.reply_to_message?.message_id, topic, "a topic message replies to its root");
    assert.ok(inTopic.message?.reply_to_message?.forum_topic_created);

    // The bot's own messages never come back as updates.
    const sent = await bot.api.sendMessage(chat, "from the bot", { message_thread_id: topic });
    assert.equal(sent.message_thread_id, topic);
    assert.equal(sent.from?.id, relay.user.id);
    assert.equal(sent.from?.is_bot, true);
    alice.say(chat, "after the bot");
    await seen.waitFor((u) => u.message?.text === "after the bot", { what: "the next post" });
    assert.ok(!seen.items.some((u) => u.message?.text === "from the bot"));
  });

  it("shows what the bot sends, edits and deletes, with markup parsed into entities", async () => {
    const tg = await startTelegramSimulator(teardown, quiet);
    const relay = tg.createBot({ username: "relay_bot" });
    const alice = tg.createUser({ first_name: "Alice" });
    const chat = tg.createChat({ title: "Lobby", members: [relay, alice] });
    const api = new Api(relay.token, { apiRoot: tg.apiRoot });

    const me = await api.getMe();
    assert.equal(me.username, "relay_bot");
    assert.equal(me.is_bot, true);
    const parent = alice.say(chat, "question?");
    const html = await api.sendMessage(chat, "<b>bob</b>: 1 &lt; 2", {
      parse_mode: "HTML",
      reply_parameters: { message_id: parent },
      link_preview_options: { is_disabled: true },
    });
    assert.equal(html.text, "bob: 1 < 2");
    assert.deepEqual(html.entities, [{ type: "bold", offset: 0, length: 3 }]);
    assert.equal(html.reply_to_message?.message_id, parent);
    const action = await tg.botActions.waitFor((a) => a.method === "sendMessage", { what: "the send" });
    assert.equal(action.replyTo, parent);
    assert.equal(action.linkPreviewDisabled, true);
    assert.equal(action.rawText, "<b>bob</b>: 1 &lt; 2");

    const v2 = await api.sendMessage(chat, "*bold* 1\\.5 \\(x\\) _it_ `a.b` [link](http://x.test/a\\)b)", {
      parse_mode: "MarkdownV2",
    });
    assert.equal(v2.text, "bold 1.5 (x) it a.b link");
    assert.deepEqual(
      v2.entities?.map((e) => e.type),
      ["bold", "italic", "code", "text_link"],
    );

    const edited = await api.editMessageText(chat, html.message_id, "changed");
    assert.equal((edited as Message).text, "changed");
    assert.equal(await api.deleteMessage(chat, v2.message_id), true);
    assert.deepEqual(
      tg.history(chat).map((m) => [m.text, m.edited]),
      [
        ["question?", false],
        ["changed", true],
      ],
    );
  });

  it("answers errors as the platform does: codes, descriptions, retry_after and Retry-After", async () => {
    const tg = await startTelegramSimulator(teardown, quiet);
    const relay = tg.createBot({ username: "relay_bot" });
    const alice = tg.createUser({ first_name: "Alice" });
    const chat = tg.createChat({ title: "Lobby", members: [relay, alice] });
    const other = tg.createChat({ title: "Elsewhere", members: [alice] });
    const api = new Api(relay.token, { apiRoot: tg.apiRoot });
    const failure = async (call: Promise<unknown>): Promise<GrammyError> => {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof GrammyError, `expected a GrammyError, got ${String(error)}`);
      return error;
    };

    const wrong = await failure(new Api("123456:wrong-token-wrong-token-wrong-token", { apiRoot: tg.apiRoot }).getMe());
    assert.equal(wrong.error_code, 401);
    assert.equal(wrong.description, "Unauthorized");
    const malformed = await failure(new Api("not-a-token", { apiRoot: tg.apiRoot }).getMe());
    assert.equal(malformed.description, "Unauthorized: invalid token specified");

    const markup = await failure(api.sendMessage(chat, "1.5", { parse_mode: "MarkdownV2" }));
    assert.equal(markup.error_code, 400);
    assert.match(markup.description, /^Bad Request: can't parse entities: Character '\.' is reserved/);
    const html = await failure(api.sendMessage(chat, "<b>open", { parse_mode: "HTML" }));
    assert.match(html.description, /Can't find end tag corresponding to start tag "b"/);
    assert.equal((await failure(api.sendMessage(-1, "x"))).description, "Bad Request: chat not found");
    assert.equal(
      (await failure(api.sendMessage(other, "x"))).description,
      "Forbidden: bot is not a member of the supergroup chat",
    );
    assert.equal((await failure(api.sendMessage(chat, " "))).description, "Bad Request: message text is empty");
    const mine = await api.sendMessage(chat, "same");
    assert.match((await failure(api.editMessageText(chat, mine.message_id, "same"))).description, /not modified/);
    assert.equal((await failure(api.deleteMessage(chat, 999))).description, "Bad Request: message to delete not found");

    tg.rateLimit(2, { retryAfter: 3, method: "sendMessage" });
    for (const _ of [1, 2]) {
      const limited = await failure(api.sendMessage(chat, "flood"));
      assert.equal(limited.error_code, 429);
      assert.equal(limited.description, "Too Many Requests: retry after 3");
      assert.equal(limited.parameters.retry_after, 3);
    }
    assert.equal((await api.sendMessage(chat, "flood")).text, "flood");
    tg.rateLimit(1, { retryAfter: 7 });
    const raw = await fetch(`${tg.apiRoot}/bot${relay.token}/getMe`);
    assert.equal(raw.status, 429);
    assert.equal(raw.headers.get("retry-after"), "7");
    assert.equal(raw.headers.get("content-type"), "application/json");

    const unknown = await failure(api.raw.getChatMemberCount({ chat_id: chat }));
    assert.equal(unknown.error_code, 404);
    assert.equal(unknown.description, "Not Found");
    assert.deepEqual(tg.unhandled, ["POST /bot<token>/getChatMemberCount"]);
    const stray = await fetch(`${tg.apiRoot}/nothing-here`);
    assert.equal(stray.status, 404);
    assert.deepEqual(await stray.json(), { ok: false, error_code: 404, description: "Not Found" });
  });

  it("holds getUpdates as a long poll, ends an older poll with 409, and fails held polls when connections drop", async () => {
    const tg = await startTelegramSimulator(teardown, quiet);
    const relay = tg.createBot({ username: "relay_bot" });
    const alice = tg.createUser({ first_name: "Alice" });
    const chat = tg.createChat({ title: "Lobby", members: [relay, alice] });
    const api = new Api(relay.token, { apiRoot: tg.apiRoot });

    const held = api.getUpdates({ timeout: 30 });
    setImmediate(() => alice.say(chat, "wake up"));
    const updates = await withTimeout(held, 5_000, "the long poll");
    assert.equal(updates[0]?.message?.text, "wake up");
    const next = (updates[0]?.update_id ?? 0) + 1;
    assert.deepEqual(await api.getUpdates({ offset: next, timeout: 0 }), [], "the offset confirmed the update");

    const older = api.getUpdates({ offset: next, timeout: 30 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const newer = api.getUpdates({ offset: next, timeout: 30 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const conflict = await withTimeout(older, 5_000, "the older poll");
    assert.ok(conflict instanceof GrammyError);
    assert.equal(conflict.error_code, 409);
    assert.match(conflict.description, /terminated by other getUpdates request/);

    assert.ok(tg.dropConnections() >= 1);
    const dropped = await withTimeout(newer, 5_000, "the dropped poll");
    assert.ok(dropped instanceof HttpError, `expected an HttpError, got ${String(dropped)}`);

    tg.setReachable(false);
    const refused = await api.getMe().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(refused instanceof HttpError);
    tg.setReachable(true);
    alice.say(chat, "while away");
    const later = await api.getUpdates({ offset: next, timeout: 0 });
    assert.equal(later[0]?.message?.text, "while away", "updates wait for the bot while it is away");
  });
});
