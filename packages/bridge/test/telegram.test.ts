// The telegram account through grammy against the Bot API simulator, with an api account and a scripted account
// (messages with ids) on the same gateway: text both ways with RemoteNickFormat, actions, edits and deletes mapped
// through the id cache, replies, forum topics, a 429 answer, a dropped connection, and a refused token.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import { Events } from "../src/message.ts";
import { post, startBridge, suiteTeardown } from "./helpers.ts";
import { startTelegramRun } from "./telegram-fixture.ts";

describe("telegram account", () => {
  const teardown = suiteTeardown();

  it("relays text both ways with RemoteNickFormat, and actions both ways", async () => {
    const run = await startTelegramRun(teardown);
    const { tg, chat, alice } = run;

    assert.equal((await post(run.apiUrl, { text: "hello telegram", username: "bob", gateway: "g" })).status, 200);
    const sent = await tg.botActions.waitFor((a) => a.method === "sendMessage", { what: "the relayed text" });
    assert.equal(sent.chatId, chat);
    assert.equal(sent.text, "<bob> hello telegram");
    assert.equal(sent.parseMode, "", "plain text by default");

    alice.say(chat, "hello bridge");
    const inbound = await run.waitForApi((m) => m.text === "hello bridge", "the Telegram message on api");
    assert.equal(inbound.username, "alice");
    assert.equal(inbound.userid, String(alice.user.id));
    assert.equal(inbound.channel, String(chat));
    assert.equal(inbound.account, "telegram.tg");
    assert.equal(inbound.protocol, "telegram");
    await run.scripted.waitForDelivery((d) => d.message.text === "hello bridge", "the scripted copy");

    await post(run.apiUrl, { text: "waves", username: "bob", gateway: "g", event: Events.userAction });
    const action = await tg.botActions.waitFor((a) => a.text.includes("waves"), { what: "the action" });
    assert.equal(action.text, "* <bob> waves");

    alice.say(chat, "/me dances");
    const dance = await run.waitForApi((m) => m.text === "dances", "the action on api");
    assert.equal(dance.event, Events.userAction);
    assert.equal(dance.username, "alice");
  });

  it("maps edits and deletes across through the id cache, both ways", async () => {
    const run = await startTelegramRun(teardown, { telegram: 'EditSuffix = " (edited)"' });
    const { tg, chat, alice, scripted } = run;

    // Another platform's message, its edit and its delete reach the copy on Telegram.
    scripted.say({ id: "s1", text: "first draft" });
    const sent = await tg.botActions.waitFor((a) => a.method === "sendMessage" && a.text === "<carol> first draft", {
      what: "the original",
    });
    scripted.say({ id: "s1", text: "second draft" });
    const edit = await tg.botActions.waitFor((a) => a.method === "editMessageText", { what: "the edit" });
    assert.equal(edit.messageId, sent.messageId);
    assert.equal(edit.text, "<carol> second draft");
    scripted.say({ id: "s1", text: "", event: Events.msgDelete });
    const deleted = await tg.botActions.waitFor((a) => a.method === "deleteMessage", { what: "the delete" });
    assert.equal(deleted.messageId, sent.messageId);
    assert.ok(!tg.history(chat).some((m) => m.message_id === sent.messageId), "gone from the chat");

    // A Telegram user's edit reaches the copies made of the original.
    const original = alice.say(chat, "tpyo");
    const copy = await scripted.waitForDelivery((d) => d.message.text === "tpyo", "the copy");
    alice.edit(chat, original, "typo");
    const edited = await scripted.waitForDelivery((d) => d.message.text === "typo (edited)", "the edited copy");
    assert.equal(edited.message.id, scripted.ids.get(copy), "the edit names the copy the scripted account made");
    await run.waitForApi((m) => m.text === "typo (edited)", "the edit on api");
  });

  it("keeps replies: a Telegram reply quotes its parent and names it; a reply from elsewhere replies on Telegram", async () => {
    const run = await startTelegramRun(teardown, { telegram: "PreserveThreading = true" });
    const { tg, chat, alice, scripted } = run;

    scripted.say({ id: "q1", text: "what time is it?" });
    const question = await tg.botActions.waitFor((a) => a.text === "<carol> what time is it?", { what: "question" });
    alice.say(chat, "noon", { replyTo: question.messageId });
    const onApi = await run.waitForApi((m) => m.text.startsWith("noon"), "the reply on api");
    assert.equal(onApi.text, "noon (re @relay_bot: <carol> what time is it?)");
    const reply = await scripted.waitForDelivery((d) => d.message.text.startsWith("noon"), "the reply");
    assert.equal(reply.message.parent_id, "q1", "the parent is the scripted account's own message");

    const said = alice.say(chat, "anyone here?");
    const copy = await scripted.waitForDelivery((d) => d.message.text === "anyone here?", "the question's copy");
    // The scripted user replies to the copy they see; the core maps it to alice's message on Telegram.
    scripted.say({ id: "a1", text: "yes", parent_id: scripted.ids.get(copy) ?? "" });
    const answer = await tg.botActions.waitFor((a) => a.text === "<carol> yes", { what: "the answer" });
    assert.equal(answer.replyTo, said, "sent as a reply to alice's message");
  });

  it("bridges one forum topic as its own channel (chatid/topicid)", async () => {
    let topic = 0;
    const run = await startTelegramRun(teardown, {
      forum: true,
      channel: (chat, { alice }) => {
        topic = alice.createTopic(chat, "Bridge");
        return `${chat}/${topic}`;
      },
    });
    const { tg, chat, alice } = run;
    await post(run.apiUrl, { text: "into the topic", username: "bob", gateway: "g" });
    const sent = await tg.botActions.waitFor((a) => a.text === "<bob> into the topic", { what: "the topic post" });
    assert.equal(sent.threadId, topic);
    alice.say(chat, "outside the topic");
    alice.say(chat, "inside the topic", { topic });
    const inbound = await run.waitForApi((m) => m.text === "inside the topic", "the topic message");
    assert.equal(inbound.channel, `${chat}/${topic}`);
    assert.equal(inbound.parent_id, "", "the topic root is not a reply parent");
    assert.ok(!run.api.items.some((m) => m.text === "outside the topic"), "other topics are not bridged");
  });

  it("waits out a 429 (retry_after) and delivers everything in order", async () => {
    const run = await startTelegramRun(teardown);
    const { tg, chat } = run;
    tg.rateLimit(1, { retryAfter: 1, method: "sendMessage" });
    for (const n of [1, 2, 3]) await post(run.apiUrl, { text: `burst ${n}`, username: "bob", gateway: "g" });
    await tg.botActions.waitFor((a) => a.text === "<bob> burst 3", { what: "the last message" });
    assert.deepEqual(
      tg.history(chat).map((m) => m.text),
      ["<bob> burst 1", "<bob> burst 2", "<bob> burst 3"],
    );
    const sends = tg.calls.filter((c) => c.method === "sendMessage").map((c) => c.status);
    assert.deepEqual(sends, [429, 200, 200, 200], "refused once, then each sent once");
  });

  it("holds what is sent during an outage and delivers both ways after the reconnect", async () => {
    const run = await startTelegramRun(teardown);
    const { tg, chat, alice, account } = run;
    await post(run.apiUrl, { text: "before", username: "bob", gateway: "g" });
    await tg.botActions.waitFor((a) => a.text === "<bob> before", { what: "the first message" });
    await waitUntil(() => account.queued === 0, { what: "the first send to finish" });

    tg.setReachable(false);
    await waitUntil(() => !account.supervisor.isUp, { timeoutMs: 10_000, what: "the account noticing the outage" });
    for (const n of [1, 2, 3]) await post(run.apiUrl, { text: `during ${n}`, username: "bob", gateway: "g" });
    assert.equal(account.queued, 3, "held while down");
    alice.say(chat, "said while the bridge was away");
    tg.setReachable(true);

    await tg.botActions.waitFor((a) => a.text === "<bob> during 3", { timeoutMs: 15_000, what: "the held messages" });
    assert.deepEqual(
      tg
        .history(chat)
        .map((m) => m.text)
        .filter((text) => text.startsWith("<bob>")),
      ["<bob> before", "<bob> during 1", "<bob> during 2", "<bob> during 3"],
    );
    await run.waitForApi((m) => m.text === "said while the bridge was away", "the update kept by Telegram");
    assert.ok(run.bridge.logs.some((line) => line.includes("telegram.tg reconnected")));
  });

  it("stops start-up with one line naming the account when Telegram refuses the token", async () => {
    const run = await startTelegramRun(teardown);
    const wrong = `${run.bot.user.id}:wrongwrongwrongwrongwrongwrongwrong`;
    const before = run.tg.calls.length;
    await assert.rejects(
      startBridge(
        `[telegram.bad]\nToken = "${wrong}"\nApiURL = "${run.tg.apiRoot}"\n\n[[gateway]]\nname = "g"\nenable = true\n  [[gateway.inout]]\n  account = "telegram.bad"\n  channel = "${run.chat}"\n`,
        teardown,
      ),
      /^Error: \[telegram\.bad\] Telegram refused the token \(Token\): 401 Unauthorized$/,
    );
    const tries = run.tg.calls.slice(before);
    assert.deepEqual(tries, [{ bot: "", method: "getMe", status: 401 }], "one attempt, no retry storm");
    assert.ok(!JSON.stringify(run.bridge.logs).includes("wrongwrong"), "the token is never logged");
  });
});
