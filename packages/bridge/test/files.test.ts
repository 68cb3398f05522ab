// Files relayed between platforms through the real bin: a picture posted on Discord or Telegram arrives as an upload
// on the other and as a link on IRC (ngIRCd) and the api; with MediaDownloadPath + MediaServerDownload every
// destination gets the media server's link (served by a tiny static server here); MediaDownloadBlackList; and a
// hostile source (a 10 GB Content-Length, a redirect loop, an endless body) costs only its own file: the text is
// relayed, the process stays up, one log line per file names the account and the file and never a token.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { describe, it } from "node:test";
import {
  connectIrcUser,
  type DiscordSimulator,
  type FakeMatrix,
  type IrcUser,
  type MatrixHuman,
  type MattermostHuman,
  type MattermostSimulator,
  type SlackHuman,
  type SlackSimulator,
  startDiscordSimulator,
  startFakeMatrix,
  startMattermostSimulator,
  startNgircd,
  startSlackSimulator,
  startTelegramSimulator,
  type Teardown,
  type TelegramSimulator,
  type TelegramUser,
  waitUntil,
} from "@switchboard/testkit";
import { startBridgeProcess } from "./bridge-process.ts";
import { openStream, suiteTeardown } from "./helpers.ts";

const WAIT = { timeoutMs: 20_000 };
const PICTURE = Buffer.from("\x89PNG\r\n\x1a\n a tiny picture");

interface World {
  discord: DiscordSimulator;
  slack: SlackSimulator;
  sam: SlackHuman;
  mattermost: MattermostSimulator;
  mia: MattermostHuman;
  matrix: FakeMatrix;
  maria: MatrixHuman;
  room: string;
  telegram: TelegramSimulator;
  tina: TelegramUser;
  chat: number;
  ivan: IrcUser;
  toml(general: string): string;
}

async function world(teardown: Teardown, options: { slackMaxUpload?: number } = {}): Promise<World> {
  const discord = await startDiscordSimulator(teardown, { channels: ["all"] });
  const slack = await startSlackSimulator(
    teardown,
    options.slackMaxUpload === undefined ? {} : { maxUploadBytes: options.slackMaxUpload },
  );
  const slackApp = slack.createApp("relay");
  const sam = slack.createUser("sam");
  slack.createChannel("all", [slackApp, sam]);
  const mattermost = await startMattermostSimulator(teardown);
  const mmBot = mattermost.createBot("relay", "relay-password");
  const mia = mattermost.createUser("mia");
  mattermost.createChannel("all", [mmBot.user, mia]);
  // Only the authenticated media download (Matrix 1.11) serves files, as on a current Synapse.
  const matrix = await startFakeMatrix(teardown, { log: () => {}, legacyMediaDownloads: false });
  const maria = matrix.registerUser("maria");
  matrix.registerUser("relay", { password: "relay-password" });
  const room = matrix.createRoom(maria, { alias: "all" });
  const telegram = await startTelegramSimulator(teardown, { log: () => {} });
  const bot = telegram.createBot({ username: "relay_bot" });
  const tina = telegram.createUser({ first_name: "Tina", username: "tina" });
  const chat = telegram.createChat({ title: "All", members: [bot, tina] });
  const irc = await startNgircd(teardown);
  const ivan = await connectIrcUser(teardown, { ...irc, nick: "ivan", channels: ["#all"] });
  const nick = 'RemoteNickFormat = "<{NICK}> "';
  const toml = (general: string) => `[general]
${general}
[discord.dc]
Token = "${discord.token}"
Server = "${discord.guild.name}"
ApiURL = "${discord.apiUrl}"
${nick}
[telegram.tg]
Token = "${bot.token}"
ApiURL = "${telegram.apiRoot}"
${nick}
[slack.sl]
Token = "${slackApp.botToken}"
AppToken = "${slackApp.appToken}"
ApiURL = "${slack.apiUrl}"
${nick}
[mattermost.mm]
Server = "${mattermost.hostPort}"
NoTLS = true
Team = "${mattermost.teamName}"
Token = "${mmBot.token}"
${nick}
[matrix.mx]
Server = "${matrix.url}"
Login = "relay"
Password = "relay-password"
${nick}
[irc.net]
Server = "127.0.0.1:${irc.port}"
Nick = "bridgebot"
MessageDelay = 0
${nick}
[api.local]
BindAddress = "127.0.0.1:0"
StateFile = ""

[[gateway]]
name = "all"
enable = true
  [[gateway.inout]]
  account = "discord.dc"
  channel = "all"
  [[gateway.inout]]
  account = "telegram.tg"
  channel = "${chat}"
  [[gateway.inout]]
  account = "slack.sl"
  channel = "all"
  [[gateway.inout]]
  account = "mattermost.mm"
  channel = "all"
  [[gateway.inout]]
  account = "matrix.mx"
  channel = "#all:localhost"
  [[gateway.inout]]
  account = "irc.net"
  channel = "#all"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
  return { discord, slack, sam, mattermost, mia, matrix, maria, room, telegram, tina, chat, ivan, toml };
}

const ircLines = (ivan: IrcUser) =>
  ivan.events.items.flatMap((e) => (e.type === "privmsg" && e.nick === "bridgebot" ? [e.text] : []));

/** The bot's file share on Slack carrying `name`, its bytes checked. */
async function slackUpload(w: World, name: string) {
  const share = await w.slack.sent.waitFor((a) => a.kind === "post" && a.message.files?.[0]?.name === name, WAIT);
  assert.deepEqual(w.slack.fileData(share.message.files?.[0]?.id ?? ""), PICTURE);
  return share.message;
}

/** The bot's Mattermost post carrying a file named `name`, its bytes checked. */
async function mattermostUpload(w: World, name: string) {
  const post = await w.mattermost.sent.waitFor((a) => {
    const files = (a.post.metadata["files"] ?? []) as { name: string }[];
    return a.kind === "post" && files[0]?.name === name;
  }, WAIT);
  assert.deepEqual(w.mattermost.fileData(post.post.file_ids[0] ?? ""), PICTURE);
  return post.post;
}

/** The bot's Matrix media event for a file named `name`, its bytes checked. */
async function matrixUpload(w: World, name: string) {
  const event = await w.matrix.waitForEvent((e) => e.sender === "@relay:localhost" && e.content["filename"] === name, {
    timeoutMs: WAIT.timeoutMs,
    what: `the Matrix upload of ${name}`,
  });
  assert.deepEqual(w.matrix.media(String(event.content["url"])), PICTURE);
  return event.content;
}

type FileEntry = { Name: string; URL: string; Size: number; SHA: string };
const apiFiles = (message: { Extra: Record<string, unknown[]> | null }) =>
  (message.Extra?.["file"] ?? []) as FileEntry[];

/** A tiny static server for the media server's folder (what nginx would be). */
async function staticServer(root: string, teardown: Teardown): Promise<string> {
  const server: Server = createServer((request, response) => {
    const path = normalize(join(root, decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname)));
    try {
      if (!path.startsWith(root)) throw new Error("outside");
      response.end(readFileSync(path));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  teardown.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("files relayed between platforms", () => {
  const teardown = suiteTeardown();

  it("uploads a picture natively where the platform takes uploads, links it on IRC and the api", async () => {
    const w = await world(teardown);
    const bridge = await startBridgeProcess(w.toml('MediaDownloadBlackList = ["\\\\.exe$"]'), teardown);
    const stream = await openStream(bridge.url("api.local"));
    teardown.after(() => stream.close());
    const dana = w.discord.addUser("dana");

    // Discord -> Telegram (sendPhoto), IRC and the api (the CDN link).
    const said = dana.say("all", "look at this", { files: [{ name: "cat.png", data: PICTURE }] });
    const cdnUrl = said.attachments[0]?.url ?? "";
    const photo = await w.telegram.botActions.waitFor((a) => a.method === "sendPhoto", WAIT);
    assert.equal(photo.file?.name, "cat.png");
    assert.deepEqual(photo.file?.data, PICTURE);
    assert.equal(photo.text, "<dana>");
    await waitUntil(() => w.telegram.history(w.chat).some((m) => m.text === "<dana> look at this"), WAIT);
    await waitUntil(() => ircLines(w.ivan).includes(`<dana> ${cdnUrl}`), { ...WAIT, what: "the CDN link on IRC" });
    assert.ok(ircLines(w.ivan).includes("<dana> look at this"));
    const api = await stream.waitFor((m) => m.text === "look at this", WAIT);
    assert.deepEqual(
      apiFiles(api).map((f) => [f.Name, f.URL]),
      [["cat.png", cdnUrl]],
    );
    // Discord -> Slack: the text under the sender's name, then the file shared with the nick as its comment.
    assert.equal((await slackUpload(w, "cat.png")).text, "&lt;dana&gt;");
    assert.ok(w.slack.history("all").some((m) => m.text === "look at this" && m.username === "<dana>"));
    // Discord -> Mattermost: one post with the text and the uploaded file.
    assert.equal((await mattermostUpload(w, "cat.png")).message, "look at this");
    // Discord -> Matrix: the text, then an m.image event naming the uploaded mxc:// URI.
    const image = await matrixUpload(w, "cat.png");
    assert.equal(image["msgtype"], "m.image");
    assert.deepEqual(image["info"], { mimetype: "image/png", size: PICTURE.length });
    assert.ok(w.matrix.events.items.some((e) => e.content["body"] === "<dana> look at this"));

    // Slack -> Discord, Telegram (fetched from url_private with the bot token); its page as the link elsewhere.
    w.sam.say("all", "from slack", { files: [{ name: "bird.png", data: PICTURE }] });
    const permalink = w.slack.history("all").find((m) => m.text === "from slack")?.files?.[0]?.permalink ?? "";
    const fromSlack = await w.discord.sent.waitFor((a) => a.message.attachments[0]?.filename === "bird.png", WAIT);
    assert.equal(fromSlack.message.content, "<sam> from slack");
    assert.deepEqual(w.discord.attachment(fromSlack.message.attachments[0]?.url ?? ""), PICTURE);
    const slackPhoto = await w.telegram.botActions.waitFor((a) => a.method === "sendPhoto" && a.text === "<sam>", WAIT);
    assert.deepEqual(slackPhoto.file?.data, PICTURE);
    await waitUntil(() => ircLines(w.ivan).includes(`<sam> ${permalink}`), { ...WAIT, what: "the Slack link on IRC" });
    const fromSlackApi = await stream.waitFor((m) => m.text === "from slack", WAIT);
    assert.deepEqual(
      apiFiles(fromSlackApi).map((f) => [f.Name, f.URL]),
      [["bird.png", permalink]],
    );
    assert.equal((await mattermostUpload(w, "bird.png")).message, "from slack");
    await matrixUpload(w, "bird.png");

    // Mattermost -> the others (fetched from /api/v4/files/{id} with the session); its API link elsewhere.
    const postId = w.mia.say("all", "from mattermost", { files: [{ name: "fish.png", data: PICTURE }] });
    const fileId = w.mattermost.world.post(postId)?.post.file_ids[0] ?? "";
    const mmLink = `${w.mattermost.url}/api/v4/files/${fileId}`;
    const fromMm = await w.discord.sent.waitFor((a) => a.message.attachments[0]?.filename === "fish.png", WAIT);
    assert.equal(fromMm.message.content, "<mia> from mattermost");
    assert.deepEqual(w.discord.attachment(fromMm.message.attachments[0]?.url ?? ""), PICTURE);
    assert.equal((await slackUpload(w, "fish.png")).text, "&lt;mia&gt;");
    const mmPhoto = await w.telegram.botActions.waitFor((a) => a.method === "sendPhoto" && a.text === "<mia>", WAIT);
    assert.deepEqual(mmPhoto.file?.data, PICTURE);
    await waitUntil(() => ircLines(w.ivan).includes(`<mia> ${mmLink}`), {
      ...WAIT,
      what: "the Mattermost link on IRC",
    });
    const fromMmApi = await stream.waitFor((m) => m.text === "from mattermost", WAIT);
    assert.deepEqual(
      apiFiles(fromMmApi).map((f) => [f.Name, f.URL]),
      [["fish.png", mmLink]],
    );
    await matrixUpload(w, "fish.png");

    // Matrix -> the others (fetched from the authenticated media download with the access token).
    w.maria.sendFile(w.room, { name: "owl.png", data: PICTURE, caption: "from matrix" });
    const fromMatrixApi = await stream.waitFor((m) => m.text === "from matrix", WAIT);
    const [owl] = apiFiles(fromMatrixApi);
    assert.equal(owl?.Name, "owl.png");
    assert.match(owl?.URL ?? "", /\/_matrix\/media\/v3\/download\/localhost\//);
    const fromMatrix = await w.discord.sent.waitFor((a) => a.message.attachments[0]?.filename === "owl.png", WAIT);
    assert.equal(fromMatrix.message.content, "<maria> from matrix");
    assert.deepEqual(w.discord.attachment(fromMatrix.message.attachments[0]?.url ?? ""), PICTURE);
    assert.equal((await slackUpload(w, "owl.png")).text, "&lt;maria&gt;");
    assert.equal((await mattermostUpload(w, "owl.png")).message, "from matrix");
    const owlPhoto = await w.telegram.botActions.waitFor((a) => a.method === "sendPhoto" && a.text === "<maria>", WAIT);
    assert.deepEqual(owlPhoto.file?.data, PICTURE);
    await waitUntil(() => ircLines(w.ivan).includes(`<maria> ${owl?.URL}`), {
      ...WAIT,
      what: "the Matrix link on IRC",
    });

    // Telegram -> Discord (an upload with the message); Telegram's file URL holds the token, so IRC gets no link.
    w.tina.sendFile(w.chat, { name: "dog.jpg", data: PICTURE, caption: "and a dog" });
    const copy = await w.discord.sent.waitFor((a) => a.message.attachments[0]?.filename === "photo.jpg", WAIT);
    assert.equal(copy.message.content, "<tina> and a dog");
    assert.equal(copy.message.attachments[0]?.filename, "photo.jpg");
    assert.deepEqual(w.discord.attachment(copy.message.attachments[0]?.url ?? ""), PICTURE);
    await waitUntil(() => ircLines(w.ivan).includes("<tina> and a dog"), WAIT);
    assert.equal((await slackUpload(w, "photo.jpg")).text, "&lt;tina&gt;");
    assert.equal((await mattermostUpload(w, "photo.jpg")).message, "and a dog");
    assert.equal((await matrixUpload(w, "photo.jpg"))["msgtype"], "m.image");

    // MediaDownloadBlackList: not fetched, so Telegram gets the link instead of an upload.
    dana.say("all", "not this one", { files: [{ name: "tool.exe", data: Buffer.from("MZ") }] });
    await waitUntil(() => w.telegram.history(w.chat).some((m) => m.text.startsWith("<dana> not this one\n")), WAIT);
    assert.equal(w.telegram.botActions.items.filter((a) => a.method === "sendDocument").length, 0);
    await bridge.process.waitForLine("file tool.exe not relayed: MediaDownloadBlackList", WAIT.timeoutMs);
    assert.ok(!bridge.process.output.includes(w.discord.token), "no token in the logs");
    assert.ok(!bridge.process.output.includes("xoxb-"), "no Slack token in the logs");
  });

  it("relays Telegram's stickers, voice notes, videos, audio and animations like its photos", async () => {
    const w = await world(teardown);
    await startBridgeProcess(w.toml(""), teardown);
    const sent = [
      { kind: "sticker", name: "AgAD.webp", relayed: "sticker.webp" },
      { kind: "voice", name: "rec.oga", relayed: "voice.ogg" },
      { kind: "video_note", name: "round.mp4", relayed: "video_note.mp4" },
      { kind: "video", name: "clip.mp4", relayed: "clip.mp4" },
      { kind: "audio", name: "song.mp3", relayed: "song.mp3" },
      { kind: "animation", name: "dance.gif.mp4", relayed: "dance.gif.mp4" },
    ] as const;
    for (const [index, file] of sent.entries()) {
      const data = Buffer.from(`${file.kind} bytes ${index}`);
      w.tina.sendFile(w.chat, { name: file.name, data, kind: file.kind });
      const copy = await w.discord.sent.waitFor((a) => a.message.attachments[0]?.filename === file.relayed, {
        ...WAIT,
        what: `the ${file.kind} on Discord`,
      });
      assert.deepEqual(w.discord.attachment(copy.message.attachments[0]?.url ?? ""), data, file.kind);
    }
  });

  it("sends the file's link where the destination refuses the upload (Slack's upload service: 413)", async () => {
    const w = await world(teardown, { slackMaxUpload: 4 });
    const bridge = await startBridgeProcess(w.toml(""), teardown);
    const dana = w.discord.addUser("dana");

    const said = dana.say("all", "too big for slack", { files: [{ name: "big.png", data: PICTURE }] });
    const cdnUrl = said.attachments[0]?.url ?? "";
    await waitUntil(() => w.slack.history("all").some((m) => m.text === cdnUrl && m.username === "<dana>"), {
      ...WAIT,
      what: "the link on Slack",
    });
    assert.ok(w.slack.history("all").some((m) => m.text === "too big for slack"));
    assert.equal(w.slack.history("all").filter((m) => m.files !== undefined).length, 0, "no file shared");
    // The others still get the upload.
    await w.telegram.botActions.waitFor((a) => a.method === "sendPhoto" && a.file?.name === "big.png", WAIT);
    const refusals = await bridge.process.waitForLines("file big.png not uploaded", WAIT.timeoutMs);
    assert.equal(refusals.length, 1, bridge.process.output);
    assert.match(refusals[0] ?? "", /refused \(HTTP 413\); its link is sent instead/);
  });

  it("stores files once on the media server (MediaDownloadPath) and links them everywhere", async () => {
    const w = await world(teardown);
    const folder = mkdtempSync(join(tmpdir(), "media-"));
    teardown.after(() => rmSync(folder, { recursive: true, force: true }));
    const served = await staticServer(folder, teardown);
    const general = `MediaDownloadPath = "${folder}"\nMediaServerDownload = "${served}/"`;
    const bridge = await startBridgeProcess(w.toml(general), teardown);
    const stream = await openStream(bridge.url("api.local"));
    teardown.after(() => stream.close());

    w.tina.sendFile(w.chat, { name: "my dog (1).jpg", data: PICTURE, asDocument: true, caption: "stored" });
    const api = await stream.waitFor((m) => m.text === "stored", WAIT);
    const [file] = apiFiles(api);
    assert.match(file?.SHA ?? "", /^[0-9a-f]{8}$/);
    assert.equal(file?.URL, `${served}/${file?.SHA}/my_dog_1_.jpg`);
    assert.deepEqual(Buffer.from(await (await fetch(file?.URL ?? "")).arrayBuffer()), PICTURE);
    await waitUntil(() => ircLines(w.ivan).includes(`<tina> ${file?.URL}`), { ...WAIT, what: "the media link on IRC" });
    const copy = await w.discord.sent.waitFor((a) => a.message.content.startsWith("<tina> stored"), WAIT);
    assert.equal(copy.message.content, `<tina> stored\n${file?.URL}`);
    assert.equal(copy.message.attachments.length, 0, "a link, not an upload");
    assert.ok(!bridge.process.output.includes("/file/bot"), "no Telegram file URL (it holds the token) in the logs");
  });

  it("survives hostile sources: a 10 GB Content-Length, a redirect loop, an endless body", async () => {
    const w = await world(teardown);
    const hostile = createServer((request, response) => {
      if (request.url === "/huge") {
        response.writeHead(200, { "content-length": String(10 * 1024 ** 3) });
        response.write("x");
      } else if (request.url === "/loop") {
        response.writeHead(302, { location: "/loop" }).end();
      } else {
        response.writeHead(200);
        const pump = () => {
          while (!response.destroyed && response.write(Buffer.alloc(64 * 1024))) {}
        };
        response.on("drain", pump);
        pump();
      }
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    teardown.after(() => {
      hostile.closeAllConnections();
      hostile.close();
    });
    const base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    const bridge = await startBridgeProcess(w.toml(""), teardown);
    const dana = w.discord.addUser("dana");

    dana.say("all", "hostile files", {
      links: [
        { name: "huge.png", url: `${base}/huge`, size: 10 },
        { name: "loop.png", url: `${base}/loop`, size: 10 },
        { name: "endless.png", url: `${base}/endless`, size: 10 },
      ],
    });
    await waitUntil(() => ircLines(w.ivan).includes("<dana> hostile files"), WAIT);
    await waitUntil(() => w.telegram.history(w.chat).some((m) => m.text.startsWith("<dana> hostile files\n")), WAIT);
    const telegramText = w.telegram.history(w.chat).find((m) => m.text.startsWith("<dana> hostile files"))?.text;
    assert.equal(telegramText, `<dana> hostile files\n${base}/huge\n${base}/loop\n${base}/endless`);
    for (const name of ["huge.png", "loop.png", "endless.png"]) {
      const lines = await bridge.process.waitForLines(`file ${name} from discord.dc`, WAIT.timeoutMs);
      assert.equal(lines.length, 1, `one line for ${name}: ${bridge.process.output}`);
    }
    // Still up and relaying.
    dana.say("all", "still here");
    await waitUntil(() => ircLines(w.ivan).includes("<dana> still here"), WAIT);
    assert.equal(bridge.process.running, true);
  });
});
