// Files to and from XMPP through the real bin and a real Prosody offering HTTP File Upload (mod_http_file_share):
// a Telegram picture arrives in the room as an upload (an XMPP client sees the out-of-band URL, and GETting it gives
// the same bytes), a file over the server's max-file-size arrives as its link, a file an XMPP user shares (uploaded
// to the server, sent as out-of-band data) arrives on Telegram as an upload and on the api as a file entry, and a
// shared URL on another host is passed on as a link and never fetched. A server without the service: links.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { before, describe, it } from "node:test";
import {
  type ProsodyServer,
  type ProsodyUploads,
  sendOutOfBand,
  startProsody,
  startTelegramSimulator,
  type Teardown,
  type TelegramSimulator,
  type TelegramUser,
  uploadFile,
  watchSharedFiles,
} from "@switchboard/testkit";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { openStream, post, type StreamClient, suiteTeardown } from "./helpers.ts";
import { human, USERS, xmppAccount } from "./xmpp-fixtures.ts";

const WAIT = { timeoutMs: 20_000 };
const PICTURE = Buffer.from("\x89PNG\r\n\x1a\n a tiny picture");
/** The server's max-file-size here: larger files go as links. */
const MAX_FILE_SIZE = 4096;

interface World {
  server: ProsodyServer;
  telegram: TelegramSimulator;
  tina: TelegramUser;
  chat: number;
  bridge: BridgeProcess;
  stream: StreamClient;
  room: string;
}

async function world(teardown: Teardown, server: ProsodyServer, channel: string): Promise<World> {
  const telegram = await startTelegramSimulator(teardown, { log: () => {} });
  const bot = telegram.createBot({ username: "relay_bot" });
  const tina = telegram.createUser({ first_name: "Tina", username: "tina" });
  const chat = telegram.createChat({ title: "Files", members: [bot, tina] });
  const toml = `${xmppAccount(server)}
[telegram.tg]
Token = "${bot.token}"
ApiURL = "${telegram.apiRoot}"
RemoteNickFormat = "<{NICK}> "
[api.local]
BindAddress = "127.0.0.1:0"
StateFile = ""
RemoteNickFormat = "{NICK}"

[[gateway]]
name = "files"
enable = true
  [[gateway.inout]]
  account = "xmpp.chat"
  channel = "${channel}"
  [[gateway.inout]]
  account = "telegram.tg"
  channel = "${chat}"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
  const bridge = await startBridgeProcess(toml, teardown);
  const stream = await openStream(bridge.url("api.local"));
  teardown.after(() => stream.close());
  return { server, telegram, tina, chat, bridge, stream, room: `${channel}@${server.mucDomain}` };
}

const logLines = (w: World, text: string) => w.bridge.process.waitForLines(text, WAIT.timeoutMs);
type FileEntry = { Name: string; URL: string; Size: number };
const apiFiles = (message: { Extra: Record<string, unknown[]> | null }) =>
  (message.Extra?.["file"] ?? []) as FileEntry[];

describe("xmpp files with a Prosody offering HTTP File Upload", () => {
  const teardown = suiteTeardown();
  let w: World;
  let uploads: ProsodyUploads;
  before(async () => {
    const server = await startProsody(teardown, {
      users: USERS,
      mucHistory: 0,
      httpUpload: { maxFileSize: MAX_FILE_SIZE },
    });
    assert.ok(server.uploads, "the server offers HTTP File Upload");
    uploads = server.uploads;
    w = await world(teardown, server, "files");
  });

  it("uploads a Telegram picture: a client sees the text, then the out-of-band URL serving the same bytes", async (t) => {
    const alice = await human(t, w.server, "alice");
    await alice.joinRoom(w.room, "Alice");
    const shared = watchSharedFiles(alice);

    w.tina.sendFile(w.chat, { name: "cat.png", data: PICTURE, caption: "look at this", asDocument: true });
    const text = await alice.waitForMessage(w.room, "look at this", WAIT.timeoutMs);
    assert.equal(text.text, "[telegram] <tina> look at this");
    const file = await shared.waitFor((f) => f.room === w.room && f.nick === "Bridge", WAIT);
    assert.equal(file.body, file.url, "the body is the URL alone, so clients show the file inline");
    assert.ok(file.url.startsWith(`${uploads.baseUrl}file_share/`), file.url);
    assert.match(file.url, /\/cat\.png$/);
    const got = await fetch(file.url, { signal: AbortSignal.timeout(WAIT.timeoutMs) });
    assert.equal(got.status, 200);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), PICTURE);
    const order = alice.messages.items.filter((m) => m.nick === "Bridge").map((m) => m.text);
    assert.ok(order.indexOf(text.text) < order.indexOf(file.url), `text before the file: ${order.join(" | ")}`);
    assert.equal(
      (await logLines(w, `HTTP File Upload: ${uploads.domain}, files up to ${MAX_FILE_SIZE} bytes`)).length,
      1,
    );
  });

  it("sends a file over the server's max-file-size as its link, with one log line; a file without text after the sender's name", async (t) => {
    const alice = await human(t, w.server, "alice");
    await alice.joinRoom(w.room, "Alice");
    const shared = watchSharedFiles(alice);
    const api = w.bridge.url("api.local");
    const big = Buffer.alloc(MAX_FILE_SIZE + 1, 7).toString("base64");
    const link = "https://files.example.org/big.png";

    const posted = await post(api, {
      text: "too big for xmpp",
      username: "carol",
      gateway: "files",
      Extra: { file: [{ Name: "big.png", Data: big, URL: link }] },
    });
    assert.equal(posted.status, 200);
    const linked = await alice.waitForMessage(w.room, "too big for xmpp", WAIT.timeoutMs);
    assert.equal(linked.text, `[api] <carol> too big for xmpp\n${link}`);
    const refusals = await logLines(w, "file big.png not uploaded");
    assert.equal(refusals.length, 1, w.bridge.process.output);
    assert.match(
      refusals[0] ?? "",
      /larger than the server's upload limit \(4097 > 4096 bytes\).*its link is sent instead/,
    );
    // Telegram takes it: the limit is the XMPP server's alone.
    await w.telegram.botActions.waitFor((a) => a.file?.name === "big.png", WAIT);

    // A file without text: the room is told who sent it, then gets the file.
    await post(api, {
      text: "",
      username: "carol",
      gateway: "files",
      Extra: { file: [{ Name: "small.png", Data: PICTURE.toString("base64") }] },
    });
    const file = await shared.waitFor((f) => f.nick === "Bridge" && f.url.endsWith("/small.png"), WAIT);
    const fromBridge = alice.messages.items.filter((m) => m.nick === "Bridge").map((m) => m.text);
    assert.equal(fromBridge[fromBridge.indexOf(file.url) - 1], "[api] <carol>");
    assert.equal(shared.items.filter((f) => f.nick === "Bridge" && f.url.includes("big.png")).length, 0);
  });

  it("relays a file an XMPP user shares: an upload on Telegram, a file entry on the api", async (t) => {
    const alice = await human(t, w.server, "alice");
    await alice.joinRoom(w.room, "Alice");

    const url = await uploadFile(alice, {
      service: uploads.domain,
      name: "owl.png",
      data: PICTURE,
      contentType: "image/png",
    });
    await sendOutOfBand(alice, w.room, url);
    const photo = await w.telegram.botActions.waitFor(
      (a) => a.method === "sendPhoto" && a.file?.name === "owl.png",
      WAIT,
    );
    assert.deepEqual(photo.file?.data, PICTURE);
    assert.equal(photo.text, "<Alice>");
    const onApi = await w.stream.waitFor((m) => apiFiles(m).some((f) => f.Name === "owl.png"), WAIT);
    assert.equal(onApi.text, "", "the body only repeated the URL");
    assert.equal(onApi.username, "Alice");
    assert.deepEqual(
      apiFiles(onApi).map((f) => [f.Name, f.URL]),
      [["owl.png", url]],
    );
  });

  it("passes a shared file on another host on as its link, never fetching it", async (t) => {
    let requests = 0;
    const elsewhere = createServer((_request, response) => {
      requests++;
      response.end("secret");
    });
    // Another loopback address: not the XMPP server's host.
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.2", resolve));
    t.after(() => new Promise<void>((resolve) => elsewhere.close(() => resolve())));
    const url = `http://127.0.0.2:${(elsewhere.address() as AddressInfo).port}/secret.png`;
    const alice = await human(t, w.server, "alice");
    await alice.joinRoom(w.room, "Alice");

    await sendOutOfBand(alice, w.room, url);
    const onApi = await w.stream.waitFor((m) => apiFiles(m).some((f) => f.URL === url), WAIT);
    assert.equal(onApi.text, "");
    const line = await w.telegram.botActions.waitFor((a) => a.method === "sendMessage" && a.text.includes(url), WAIT);
    assert.equal(line.text, `<Alice> ${url}`);
    assert.equal(requests, 0, "the bridge never fetched it");
    assert.equal(w.telegram.botActions.items.filter((a) => a.file?.name === "secret.png").length, 0);
  });
});

describe("xmpp files with a Prosody without HTTP File Upload", () => {
  const teardown = suiteTeardown();

  it("sends files as their links, saying once that the server has no upload service", async (t) => {
    const server = await startProsody(teardown, { users: USERS, mucHistory: 0 });
    assert.equal(server.uploads, undefined);
    const w = await world(teardown, server, "plain");
    const alice = await human(t, server, "alice");
    await alice.joinRoom(w.room, "Alice");
    const api = w.bridge.url("api.local");
    for (const name of ["one.png", "two.png"]) {
      await post(api, {
        text: `sending ${name}`,
        username: "carol",
        gateway: "files",
        Extra: { file: [{ Name: name, Data: PICTURE.toString("base64"), URL: `https://files.example.org/${name}` }] },
      });
      const linked = await alice.waitForMessage(w.room, `sending ${name}`, WAIT.timeoutMs);
      assert.equal(linked.text, `[api] <carol> sending ${name}\nhttps://files.example.org/${name}`);
    }
    assert.equal((await logLines(w, "offers no HTTP File Upload (XEP-0363): files are sent as links")).length, 1);
  });
});
