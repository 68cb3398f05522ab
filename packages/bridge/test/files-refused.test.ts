// Uploads Discord and Telegram refuse, through the real bin: a picture posted on one Discord server reaches another
// Discord server (as the bot and through a channel's webhook) and Telegram. Over the real limits (10 MiB a file and
// 25 MiB a request on Discord, 10 MB a photo and 50 MB a body on Telegram), and when the simulators are told to
// refuse, the message still arrives, in its place between the messages around it, with the file's working link
// instead (Telegram first tries a photo it refused for itself as a document); one log line per account names the
// reason; uploads that are taken are unchanged.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type DiscordBotAction,
  type DiscordSimulator,
  startDiscordSimulator,
  startTelegramSimulator,
  type Teardown,
  type TelegramSimulator,
  type TelegramUser,
  waitUntil,
} from "@switchboard/testkit";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { http, suiteTeardown } from "./helpers.ts";

const WAIT = { timeoutMs: 30_000 };
const MiB = 1024 * 1024;

/** A PNG whose header says width × height (640×480 by default), padded to `bytes`. */
function picture(bytes: number, width = 640, height = 480): Buffer {
  const header = Buffer.alloc(24);
  Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").copy(header);
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return Buffer.concat([header, Buffer.alloc(bytes - header.length, 7)]);
}

interface World {
  source: DiscordSimulator;
  target: DiscordSimulator;
  telegram: TelegramSimulator;
  tina: TelegramUser;
  chat: number;
  toml: string;
}

async function world(teardown: Teardown): Promise<World> {
  const source = await startDiscordSimulator(teardown, { channels: ["all"] });
  const target = await startDiscordSimulator(teardown, { channels: ["bot", "hook"] });
  const hook = target.createWebhook("hook", "relay");
  const telegram = await startTelegramSimulator(teardown, { log: () => {} });
  const bot = telegram.createBot({ username: "relay_bot" });
  const tina = telegram.createUser({ first_name: "Tina", username: "tina" });
  const chat = telegram.createChat({ title: "All", members: [bot, tina] });
  const nick = 'RemoteNickFormat = "<{NICK}> "';
  const toml = `[general]
MediaDownloadSize = 60000000
[discord.src]
Token = "${source.token}"
Server = "${source.guild.name}"
ApiURL = "${source.apiUrl}"
${nick}
[discord.dst]
Token = "${target.token}"
Server = "${target.guild.name}"
ApiURL = "${target.apiUrl}"
${nick}
[telegram.tg]
Token = "${bot.token}"
ApiURL = "${telegram.apiRoot}"
${nick}

[[gateway]]
name = "all"
enable = true
  [[gateway.inout]]
  account = "discord.src"
  channel = "all"
  [[gateway.inout]]
  account = "discord.dst"
  channel = "bot"
  [[gateway.inout]]
  account = "discord.dst"
  channel = "hook"
  [gateway.inout.options]
  WebhookURL = "${hook.url}"
  [[gateway.inout]]
  account = "telegram.tg"
  channel = "${chat}"
`;
  return { source, target, telegram, tina, chat, toml };
}

/** What the target Discord shows in a channel, in order: each message's content and its attachments' names. */
const shown = (target: DiscordSimulator, channel: string) =>
  target.sent.items
    .filter((a: DiscordBotAction) => a.kind === "create" && a.channel === channel)
    .map((a) => [a.message.content, a.message.attachments.map((f) => f.filename).join(",")]);

/** The Telegram bot's calls in order: method and text (caption for files, file name after a colon). */
const telegramCalls = (telegram: TelegramSimulator) =>
  telegram.botActions.items.map((a) => `${a.method} ${a.text}${a.file ? `:${a.file.name}` : ""}`);

/** The account's refusal lines, once one has arrived (a line can reach the test after the messages its turn sent). */
const refusalLines = (bridge: BridgeProcess, account: string) =>
  bridge.process.waitForLines(
    new RegExp(`"account":"${account.replace(".", "\\.")}".*not uploaded: refused`),
    WAIT.timeoutMs,
  );

/** The value of `bridge_file_bytes_total` for an account on the gateway "all" in the status endpoint's /metrics. */
async function fileBytes(status: string, account: string): Promise<number | undefined> {
  const text = (await http(`${status}/metrics`)).body;
  const series = `bridge_file_bytes_total{account="${account}",gateway="all"} `;
  const line = text.split("\n").find((l) => l.startsWith(series));
  return line === undefined ? undefined : Number(line.slice(series.length));
}

describe("uploads Discord and Telegram refuse", () => {
  const teardown = suiteTeardown();

  it("sends a picture over Discord's limit as its link, and over Telegram's photo limit as a document", async () => {
    const w = await world(teardown);
    const bridge = await startBridgeProcess(w.toml, teardown);
    const dana = w.source.addUser("dana");
    const big = picture(11 * MiB);

    dana.say("all", "before");
    const said = dana.say("all", "big picture", { files: [{ name: "big.png", data: big }] });
    const link = said.attachments[0]?.url ?? "";
    dana.say("all", "after");

    await waitUntil(() => shown(w.target, "bot").length === 3 && shown(w.target, "hook").length === 3, {
      ...WAIT,
      what: "three messages in each target channel",
    });
    assert.deepEqual(shown(w.target, "bot"), [
      ["<dana> before", ""],
      [`<dana> big picture\n${link}`, ""],
      ["<dana> after", ""],
    ]);
    assert.deepEqual(shown(w.target, "hook"), [
      ["before", ""],
      [`big picture\n${link}`, ""],
      ["after", ""],
    ]);
    assert.ok(
      w.target.sent.items.filter((a) => a.channel === "hook").every((a) => a.via === "webhook"),
      "the webhook channel's messages went through the webhook",
    );
    assert.ok(
      w.target.requests.filter((line) => / -> 413$/.test(line)).length >= 2,
      `Discord refused the bot's and the webhook's upload: ${w.target.requests.join("\n")}`,
    );
    // The link works: it serves the picture.
    assert.deepEqual(Buffer.from(await (await fetch(link)).arrayBuffer()), big);

    // Telegram: the photo is refused (over 10 MB) and taken as a document, between the texts.
    await waitUntil(() => telegramCalls(w.telegram).includes("sendMessage <dana> after"), WAIT);
    assert.deepEqual(telegramCalls(w.telegram), [
      "sendMessage <dana> before",
      "sendMessage <dana> big picture",
      "sendDocument <dana>:big.png",
      "sendMessage <dana> after",
    ]);
    assert.deepEqual(w.telegram.botActions.items[2]?.file?.data, big);
    assert.ok(w.telegram.calls.some((c) => c.method === "sendPhoto" && c.status === 400));

    const lines = await refusalLines(bridge, "discord.dst");
    assert.equal(lines.length, 1, `one refusal line for Discord (the second is counted quietly):\n${lines.join("\n")}`);
    assert.match(
      lines[0] ?? "",
      /file big\.png not uploaded: refused \(HTTP 413, code 40005: Request entity too large\); its link is sent instead/,
    );
    assert.doesNotMatch(
      bridge.process.output,
      /"account":"telegram\.tg".*not uploaded: refused/,
      "Telegram took the document",
    );
  });

  it("sends a file over Telegram's 50 MB upload limit (and Discord's request limit) as its link", async () => {
    const w = await world(teardown);
    const bridge = await startBridgeProcess(w.toml, teardown);
    const dana = w.source.addUser("dana");
    const huge = picture(51 * MiB);

    const said = dana.say("all", "", { files: [{ name: "huge.png", data: huge }] });
    const link = said.attachments[0]?.url ?? "";
    dana.say("all", "after");
    await waitUntil(() => telegramCalls(w.telegram).includes("sendMessage <dana> after"), WAIT);
    // Refused with 413 (the body is over the limit): no second try as a document, the link in its place.
    assert.deepEqual(telegramCalls(w.telegram), [`sendMessage <dana> ${link}`, "sendMessage <dana> after"]);
    assert.ok(w.telegram.calls.some((c) => c.method === "sendPhoto" && c.status === 413));
    assert.equal(w.telegram.calls.filter((c) => c.method === "sendDocument").length, 0);
    await waitUntil(() => shown(w.target, "bot").length === 2 && shown(w.target, "hook").length === 2, WAIT);
    assert.deepEqual(shown(w.target, "bot"), [
      [`<dana> ${link}`, ""],
      ["<dana> after", ""],
    ]);
    assert.deepEqual(shown(w.target, "hook"), [
      [link, ""],
      ["after", ""],
    ]);
    assert.match((await refusalLines(bridge, "telegram.tg"))[0] ?? "", /refused \(413 Request Entity Too Large\)/);
  });

  it("sends a picture whose dimensions Telegram refuses as a document, and only once across a rate limit", async () => {
    const w = await world(teardown);
    await startBridgeProcess(w.toml, teardown);
    const dana = w.source.addUser("dana");
    const tall = picture(4096, 400, 9800);

    w.telegram.rateLimit(1, { method: "sendDocument" });
    dana.say("all", "a tall one", { files: [{ name: "tall.png", data: tall }] });
    const document = await w.telegram.botActions.waitFor((a) => a.method === "sendDocument", WAIT);
    assert.deepEqual(document.file?.data, tall);
    // sendPhoto refused (400 PHOTO_INVALID_DIMENSIONS), sendDocument 429, then after the wait sendDocument alone.
    assert.deepEqual(
      w.telegram.calls.filter((c) => c.method.startsWith("send")).map((c) => `${c.method} ${c.status}`),
      ["sendMessage 200", "sendPhoto 400", "sendDocument 429", "sendDocument 200"],
    );
    assert.deepEqual(telegramCalls(w.telegram), ["sendMessage <dana> a tall one", "sendDocument <dana>:tall.png"]);
  });

  it("counts in bridge_file_bytes_total the bytes uploaded, not those of a refused file sent as its link", async () => {
    const w = await world(teardown);
    const toml = w.toml.replace("[general]\n", '[general]\nStatusAddress = "127.0.0.1:0"\n');
    const bridge = await startBridgeProcess(toml, teardown);
    const status = /status endpoint listening on (http:\/\/[^\s"]+)/.exec(bridge.process.output)?.[1] ?? "";
    const dana = w.source.addUser("dana");

    // Refused everywhere: by Telegram (413), and on both channels of discord.dst (the bot lacks Attach Files).
    w.telegram.refuseUploads(1);
    w.target.refuseUploads(2, "missing-permission");
    dana.say("all", "a cat", { files: [{ name: "cat.png", data: picture(3000) }] });
    await waitUntil(() => shown(w.target, "bot").length === 1 && shown(w.target, "hook").length === 1, WAIT);
    await waitUntil(() => telegramCalls(w.telegram).length === 2, WAIT);
    // Taken: 2,000 bytes on each of discord.dst's two channels and once on Telegram. The refused message went
    // first on each channel, so whatever it counted is in the total by the time this one is.
    dana.say("all", "a bird", { files: [{ name: "bird.png", data: picture(2000) }] });
    await waitUntil(async () => ((await fileBytes(status, "discord.dst")) ?? 0) >= 4000, WAIT);
    await waitUntil(async () => ((await fileBytes(status, "telegram.tg")) ?? 0) >= 2000, WAIT);
    assert.deepEqual(shown(w.target, "bot")[1], ["<dana> a bird", "bird.png"]);
    assert.equal(await fileBytes(status, "discord.dst"), 4000);
    assert.equal(await fileBytes(status, "telegram.tg"), 2000);
    assert.equal(await fileBytes(status, "discord.src"), 0);
  });

  it("sends the link when the platforms refuse a small picture, and uploads the next one as before", async () => {
    const w = await world(teardown);
    const bridge = await startBridgeProcess(w.toml, teardown);
    const dana = w.source.addUser("dana");
    const small = picture(2048);

    // Telegram refuses the upload (413, not retried as a document); Discord lacks Attach Files (403, 50013).
    w.telegram.refuseUploads(1);
    w.target.refuseUploads(2, "missing-permission");
    dana.say("all", "before");
    const said = dana.say("all", "a cat", { files: [{ name: "cat.png", data: small }] });
    const link = said.attachments[0]?.url ?? "";
    dana.say("all", "after");
    await waitUntil(() => shown(w.target, "bot").length === 3 && shown(w.target, "hook").length === 3, WAIT);
    await waitUntil(() => telegramCalls(w.telegram).includes("sendMessage <dana> after"), WAIT);
    assert.deepEqual(shown(w.target, "bot"), [
      ["<dana> before", ""],
      [`<dana> a cat\n${link}`, ""],
      ["<dana> after", ""],
    ]);
    assert.deepEqual(shown(w.target, "hook")[1], [`a cat\n${link}`, ""]);
    assert.deepEqual(telegramCalls(w.telegram), [
      "sendMessage <dana> before",
      "sendMessage <dana> a cat",
      `sendMessage <dana> ${link}`,
      "sendMessage <dana> after",
    ]);
    assert.ok(
      w.telegram.calls.some((c) => c.method === "sendPhoto" && c.status === 413),
      "the photo was refused once, not retried as a document",
    );
    assert.equal(w.telegram.calls.filter((c) => c.method === "sendDocument").length, 0);
    assert.match(
      (await refusalLines(bridge, "telegram.tg"))[0] ?? "",
      /file cat\.png not uploaded: refused \(413 Request Entity Too Large\); its link is sent instead/,
    );
    assert.match((await refusalLines(bridge, "discord.dst"))[0] ?? "", /HTTP 403, code 50013: Missing Permissions/);

    // A file without text, refused as an invalid form: the link alone under the nick; a Telegram file has no link.
    w.target.refuseUploads(4, "invalid-form");
    const dog = dana.say("all", "", { files: [{ name: "dog.png", data: small }] });
    const dogLink = dog.attachments[0]?.url ?? "";
    await waitUntil(() => shown(w.target, "bot").length === 4 && shown(w.target, "hook").length === 4, WAIT);
    w.tina.sendFile(w.chat, { name: "owl.png", data: small, caption: "an owl" });
    await waitUntil(() => shown(w.target, "bot").length === 5 && shown(w.target, "hook").length === 5, WAIT);
    assert.deepEqual(shown(w.target, "bot").slice(3), [
      [`<dana> ${dogLink}`, ""],
      ["<tina> an owl", ""],
    ]);
    assert.deepEqual(shown(w.target, "hook").slice(3), [
      [dogLink, ""],
      ["an owl", ""],
    ]);

    // Taken again: the same upload as ever, with the message.
    dana.say("all", "a bird", { files: [{ name: "bird.png", data: small }] });
    await waitUntil(() => shown(w.target, "bot").length === 6 && shown(w.target, "hook").length === 6, WAIT);
    assert.deepEqual(shown(w.target, "bot")[5], ["<dana> a bird", "bird.png"]);
    assert.deepEqual(shown(w.target, "hook")[5], ["a bird", "bird.png"]);
    const photo = await w.telegram.botActions.waitFor(
      (a) => a.method === "sendPhoto" && a.file?.name === "bird.png",
      WAIT,
    );
    assert.deepEqual(photo.file?.data, small);
    assert.equal(photo.text, "<dana>");
    assert.equal(bridge.process.running, true);
  });
});
