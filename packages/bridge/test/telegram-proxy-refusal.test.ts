// A proxy in front of the Bot API refuses a large upload the way nginx does (client_max_body_size, 1 MB by default,
// before a self-hosted telegram-bot-api server): the body is read and dropped, and the answer is 413 with an HTML page.
// Through the real bin, the file then reaches Telegram as its link, in its place, without a reconnect; the proxy's
// other answers (a 5xx page) still count as the network failing.
import assert from "node:assert/strict";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { startTelegramSimulator, type Teardown, waitUntil } from "@switchboard/testkit";
import { startBridgeProcess } from "./bridge-process.ts";
import { post, suiteTeardown } from "./helpers.ts";

const WAIT = { timeoutMs: 30_000 };
const LIMIT_BYTES = 64 * 1024;
const NGINX_413 =
  "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n" +
  "<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/** An nginx-like reverse proxy: bodies over LIMIT_BYTES get nginx's HTML 413; `status` answers a page instead. */
async function startProxy(upstream: string, teardown: Teardown) {
  const refused: string[] = [];
  const state = { pageStatus: 0 };
  const page = (res: ServerResponse, status: number, reason: string, body: string) => {
    res.writeHead(status, reason, { "content-type": "text/html", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.url?.split("/").pop() ?? "";
    if (state.pageStatus !== 0) {
      req.resume();
      req.on("end", () => page(res, state.pageStatus, "Bad Gateway", "<html><body>502 Bad Gateway</body></html>"));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= LIMIT_BYTES) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > LIMIT_BYTES) {
        refused.push(method);
        page(res, 413, "Request Entity Too Large", NGINX_413);
        return;
      }
      const target = new URL(req.url ?? "/", upstream);
      const forward = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on("error", () => res.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  teardown.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  teardown.after(() => server.closeAllConnections());
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, refused, state };
}

async function world(teardown: Teardown) {
  const telegram = await startTelegramSimulator(teardown, { log: () => {} });
  const bot = telegram.createBot({ username: "relay_bot" });
  const tina = telegram.createUser({ first_name: "Tina", username: "tina" });
  const chat = telegram.createChat({ title: "All", members: [bot, tina] });
  const proxy = await startProxy(telegram.apiRoot, teardown);
  const bridge = await startBridgeProcess(
    `[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "<{NICK}> "
[telegram.tg]
Token = "${bot.token}"
ApiURL = "${proxy.url}"
RemoteNickFormat = "<{NICK}> "

[[gateway]]
name = "all"
enable = true
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
  [[gateway.inout]]
  account = "telegram.tg"
  channel = "${chat}"
`,
    teardown,
  );
  const texts = () => telegram.botActions.items.map((a) => `${a.method} ${a.text}${a.file ? `:${a.file.name}` : ""}`);
  return { telegram, chat, proxy, bridge, api: bridge.url("api.local"), texts };
}

const say = (api: string, text: string, file?: { name: string; bytes: number; url: string }) =>
  post(api, {
    text,
    username: "carol",
    gateway: "all",
    ...(file && {
      Extra: { file: [{ Name: file.name, Data: Buffer.alloc(file.bytes, 7).toString("base64"), URL: file.url }] },
    }),
  });

describe("a proxy in front of the Bot API", () => {
  const teardown = suiteTeardown();

  it("refusing an upload with nginx's HTML 413: the file goes as its link, in its place, with no reconnect", async () => {
    const w = await world(teardown);
    const link = "https://files.example.org/big.png";
    await say(w.api, "before");
    await say(w.api, "a big one", { name: "big.png", bytes: LIMIT_BYTES * 2, url: link });
    await say(w.api, "after");
    await waitUntil(() => w.texts().includes("sendMessage <carol> after"), { ...WAIT, what: "the message after" });
    assert.deepEqual(w.texts(), [
      "sendMessage <carol> before",
      "sendMessage <carol> a big one",
      `sendMessage <carol> ${link}`,
      "sendMessage <carol> after",
    ]);
    assert.deepEqual(w.proxy.refused, ["sendPhoto"], "refused once by the proxy, not retried as a document");
    const [line] = await w.bridge.process.waitForLines("file big.png not uploaded", WAIT.timeoutMs);
    assert.match(line ?? "", /refused \(413 Request Entity Too Large \(not a Bot API answer\)\); its link is sent/);
    assert.doesNotMatch(w.bridge.process.output, /telegram\.tg (disconnected|cannot connect)/);

    // A small file still goes through the proxy as an upload.
    await say(w.api, "a small one", { name: "small.png", bytes: 2048, url: "https://files.example.org/small.png" });
    const photo = await w.telegram.botActions.waitFor((a) => a.file?.name === "small.png", WAIT);
    assert.equal(photo.file?.data.length, 2048);
  });

  it("answering a 5xx page: a network failure, so the message waits for the reconnect and then arrives", async () => {
    const w = await world(teardown);
    await say(w.api, "first");
    await waitUntil(() => w.texts().includes("sendMessage <carol> first"), WAIT);
    w.proxy.state.pageStatus = 502;
    await say(w.api, "while the proxy fails");
    await w.bridge.process.waitForLine(/telegram\.tg disconnected/, WAIT.timeoutMs);
    w.proxy.state.pageStatus = 0;
    await waitUntil(() => w.texts().includes("sendMessage <carol> while the proxy fails"), WAIT);
    assert.equal(w.texts().filter((t) => t === "sendMessage <carol> while the proxy fails").length, 1);
  });
});
