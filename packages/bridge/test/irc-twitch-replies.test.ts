// Twitch replies end to end, through the real bin: Twitch chat (an irc account on the Twitch IRC simulator) bridged
// with Telegram (its simulator), both with PreserveThreading. A Telegram reply to the copy of a Twitch message goes
// out on Twitch with `@reply-parent-msg-id=` naming the Twitch original; a Twitch reply (its reply-parent-msg-id
// tag) reaches Telegram as a reply to the bridge's copy of its parent.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type SimulatedBot,
  startTelegramSimulator,
  startTwitchIrc,
  type TelegramSimulator,
  type TelegramUser,
  type TwitchIrc,
  waitUntil,
} from "@switchboard/testkit";
import { startBridgeProcess } from "./bridge-process.ts";
import { suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

const config = (twitchPort: number, bot: SimulatedBot, apiRoot: string, chat: number) => `
[irc.twitch]
Server = "127.0.0.1:${twitchPort}"
Twitch = true
Nick = "bridgebot"
Password = "oauth:good"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
MessageDelay = 0
PreserveThreading = true

[telegram.tg]
Token = "${bot.token}"
ApiURL = "${apiRoot}"
RemoteNickFormat = "<{NICK}> "
PreserveThreading = true

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "irc.twitch"
  channel = "#stream"
  [[gateway.inout]]
  account = "telegram.tg"
  channel = "${chat}"
`;

describe("Twitch replies across the bridge", () => {
  const teardown = suiteTeardown();
  let twitch: TwitchIrc;
  let tg: TelegramSimulator;
  let tina: TelegramUser;
  let chat: number;

  /** The bridge's copy on Telegram of a text ending with `text`, once it is there. */
  const telegramCopy = async (text: string) => {
    let found: ReturnType<TelegramSimulator["history"]>[number] | undefined;
    await waitUntil(
      () => {
        found = tg.history(chat).find((m) => m.from === "relay_bot" && m.text.endsWith(text));
        return found !== undefined;
      },
      { timeoutMs: WAIT_MS, what: `the Telegram copy of "${text}"` },
    );
    return found as NonNullable<typeof found>;
  };

  before(async () => {
    twitch = await startTwitchIrc(teardown);
    tg = await startTelegramSimulator(teardown, { log: () => {} });
    const bot = tg.createBot({ username: "relay_bot", firstName: "Relay" });
    tina = tg.createUser({ first_name: "Tina", username: "tina" });
    chat = tg.createChat({ title: "Stream", members: [bot, tina] });
    await startBridgeProcess(config(twitch.port, bot, tg.apiRoot, chat), teardown);
  });

  it("sends a Telegram reply to a Twitch message's copy with @reply-parent-msg-id naming the Twitch message", async () => {
    const original = twitch.say("#stream", { login: "alice", displayName: "Alice_B" }, "what time is it?");
    const copy = await telegramCopy("what time is it?");
    assert.equal(copy.text, "<Alice_B> what time is it?");
    tina.say(chat, "noon", { replyTo: copy.message_id });
    const reply = await twitch.sent.waitFor((m) => m.text.includes("noon"), { timeoutMs: WAIT_MS });
    // The telegram account quotes the parent after the text, as it does for every destination.
    assert.equal(reply.text, "[telegram] <tina> noon (re @relay_bot: <Alice_B> what time is it?)");
    assert.equal(reply.tags["reply-parent-msg-id"], original);
    // A message that replies to nothing carries no reply tag.
    tina.say(chat, "plain line");
    const plain = await twitch.sent.waitFor((m) => m.text.endsWith("plain line"), { timeoutMs: WAIT_MS });
    assert.equal(plain.tags["reply-parent-msg-id"], undefined);
  });

  it("relays a Twitch reply to Telegram as a reply to the copy of its parent", async () => {
    const parent = twitch.say("#stream", { login: "alice", displayName: "Alice_B" }, "first!");
    const parentCopy = await telegramCopy("first!");
    twitch.say("#stream", { login: "bob", displayName: "Bob" }, "@alice second", {
      id: parent,
      login: "alice",
      text: "first!",
    });
    const reply = await telegramCopy("second");
    // Twitch's "@parent" in front of a reply's text is the reply itself; it is not relayed.
    assert.equal(reply.text, "<Bob> second");
    assert.equal(reply.replyTo, parentCopy.message_id);
  });
});
