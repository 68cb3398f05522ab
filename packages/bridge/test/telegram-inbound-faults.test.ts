// The real bin against a Telegram Bot API simulator that sends what a misbehaving server or proxy might: a null
// update, updates whose message has no chat or a text of the wrong type, a user with no name, a text that is a number.
// Each is skipped (one log line for them all) or read as well as it can be; the offset moves past them, and the next
// message is relayed by the same process.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTelegramSimulator, waitUntil } from "@switchboard/testkit";
import { suiteTeardown } from "./helpers.ts";
import { skippedLines, startInboundRun } from "./inbound-fixture.ts";

describe("telegram inbound faults", () => {
  const teardown = suiteTeardown();

  async function start() {
    const tg = await startTelegramSimulator(teardown, { log: () => {} });
    const bot = tg.createBot({ username: "relay_bot" });
    const alice = tg.createUser({ first_name: "Alice", username: "alice" });
    const chat = tg.createChat({ title: "Lobby", members: [bot, alice] });
    const run = await startInboundRun(teardown, {
      account: `[telegram.tg]\nToken = "${bot.token}"\nApiURL = "${tg.apiRoot}"`,
      accountId: "telegram.tg",
      channel: String(chat),
    });
    const message = (fields: Record<string, unknown>) => ({
      message_id: 9000,
      date: 1,
      chat: { id: chat, type: "supergroup", title: "Lobby" },
      from: alice.user,
      ...fields,
    });
    return { tg, bot, alice, chat, run, message };
  }

  it("skips malformed updates with one log line, moves the offset past them and relays the next message", async () => {
    const { tg, bot, alice, chat, run, message } = await start();
    tg.injectUpdate(bot, () => null);
    tg.injectUpdate(bot, (id) => ({ update_id: id, message: null }));
    tg.injectUpdate(bot, (id) => ({ update_id: id, message: message({ chat: "Lobby" }) }));
    tg.injectUpdate(bot, (id) => ({ update_id: id, message: message({ text: { bold: "hi" } }) }));
    tg.injectUpdate(bot, (id) => ({ update_id: id, message: message({ entities: "bold", text: "plain" }) }));
    tg.injectUpdate(bot, (id) => ({ update_id: id, edited_message: [1, 2] }));
    alice.say(chat, "after the faults");

    await run.waitForRelayed((m) => m.text === "after the faults", "the message after the malformed updates");
    await waitUntil(() => tg.pendingUpdates(bot) === 0, { what: "every update confirmed by the offset" });
    run.assertAlive();
    const texts = run.relayed().map((m) => m.text);
    assert.deepEqual(texts, ["plain", "after the faults"], "only what was a message is relayed");
    const lines = await skippedLines(run);
    assert.equal(lines.length, 1, `one rate-limited line for the burst:\n${lines.join("\n")}`);
    assert.match(lines[0] ?? "", /telegram\.tg/, "the line names the account");
    assert.match(lines[0] ?? "", /a Telegram update/, "and what was skipped");
  });

  it("relays a text that arrives as a number, and names a user without a name by their id", async () => {
    const { tg, bot, run, message } = await start();
    tg.injectUpdate(bot, (id) => ({ update_id: id, message: message({ text: 12345 }) }));
    const numeric = await run.waitForRelayed((m) => m.text === "12345", "the number text");
    assert.equal(numeric.username, "alice");

    const nameless = { id: 424242, is_bot: false };
    tg.injectUpdate(bot, (id) => ({
      update_id: id,
      message: message({ message_id: 9001, from: nameless, text: "hi" }),
    }));
    const anonymous = await run.waitForRelayed((m) => m.text === "hi", "the nameless user's message");
    assert.equal(anonymous.username, "424242", "the user id, not an empty nick");
    assert.equal(anonymous.userid, "424242");
    run.assertAlive();
  });
});
