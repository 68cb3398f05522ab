// The Discord and Telegram simulators refuse uploads as the platforms do, seen through the real client libraries:
// Discord's 413 code 40005 for a file over the upload limit or a body over the request limit, and on request 403
// code 50013 and 400 Invalid Form Body naming the files; the Bot API's 413 "Request Entity Too Large" for a body over
// 50 MB, a 400 for a photo it cannot take that sendDocument then takes, and any refusal on request. The next upload
// after each is taken.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DiscordAPIError, WebhookClient } from "discord.js";
import { Api, GrammyError, InputFile } from "grammy";
import { startDiscordSimulator, startTelegramSimulator, suiteTeardown } from "../src/index.ts";

const teardown = suiteTeardown();

/** A PNG whose header says width × height, padded to `bytes`. */
function png(width: number, height: number, bytes = 64): Buffer {
  const header = Buffer.from("89504e470d0a1a0a0000000d4948445200000000000000000000", "hex");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return Buffer.concat([header, Buffer.alloc(Math.max(0, bytes - header.length))]);
}

function refusedBy(status: number, code: number, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof DiscordAPIError, String(error));
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  };
}

describe("uploads the simulators refuse", () => {
  it("Discord: over the limits, and as told", async () => {
    const simulator = await startDiscordSimulator(teardown, { maxUploadBytes: 1000, maxRequestBytes: 5000 });
    const { webhook } = simulator.createWebhook("general", "relay");
    const hook = new WebhookClient({ id: webhook.id, token: webhook.token }, { rest: { api: simulator.apiUrl } });
    teardown.after(() => hook.destroy());
    const send = (bytes: number) =>
      hook.send({ content: "x", files: [{ attachment: Buffer.alloc(bytes), name: "a.bin" }] });

    await assert.rejects(send(1001), refusedBy(413, 40005, /^Request entity too large$/));
    await assert.rejects(send(6000), refusedBy(413, 40005, /^Request entity too large$/));
    simulator.refuseUploads(1, "missing-permission");
    await assert.rejects(send(10), refusedBy(403, 50013, /^Missing Permissions$/));
    simulator.refuseUploads(1, "invalid-form");
    await assert.rejects(send(10), refusedBy(400, 50035, /files\[0\]\[BINARY_TYPE_MAX_SIZE\]: File cannot be larger/));
    // A message without files is not an upload: never refused as one.
    simulator.refuseUploads(1);
    await hook.send({ content: "just text" });
    await assert.rejects(send(10), refusedBy(413, 40005, /too large/));
    const taken = await send(1000);
    assert.equal(taken.attachments[0]?.size, 1000);
    assert.equal(simulator.sent.items.length, 2, "only the text and the last upload were posted");
  });

  it("Telegram: over the limits, a photo it cannot take, and as told", async () => {
    const tg = await startTelegramSimulator(teardown, { log: () => {}, photoMaxBytes: 1000, uploadMaxBytes: 5000 });
    const relay = tg.createBot({ username: "relay_bot" });
    const chat = tg.createChat({ title: "Lobby", members: [relay] });
    const api = new Api(relay.token, { apiRoot: tg.apiRoot });
    const refused = (code: number, description: string) => (error: unknown) => {
      assert.ok(error instanceof GrammyError, String(error));
      assert.equal(error.error_code, code);
      assert.equal(error.description, description);
      return true;
    };

    const tall = png(100, 9950);
    await assert.rejects(
      api.sendPhoto(chat, new InputFile(tall, "tall.png")),
      refused(400, "Bad Request: PHOTO_INVALID_DIMENSIONS"),
    );
    await api.sendDocument(chat, new InputFile(tall, "tall.png"));
    const narrow = png(2100, 100);
    await assert.rejects(
      api.sendPhoto(chat, new InputFile(narrow, "n.png")),
      refused(400, "Bad Request: PHOTO_INVALID_DIMENSIONS"),
    );
    const heavy = png(640, 480, 2000);
    await assert.rejects(
      api.sendPhoto(chat, new InputFile(heavy, "h.png")),
      refused(400, "Bad Request: PHOTO_SAVE_FILE_INVALID"),
    );
    await api.sendDocument(chat, new InputFile(heavy, "h.png"));
    await assert.rejects(
      api.sendDocument(chat, new InputFile(Buffer.alloc(6000), "big.bin")),
      refused(413, "Request Entity Too Large"),
    );
    tg.refuseUploads(1, { code: 400, description: "Bad Request: wrong file identifier/HTTP URL specified" });
    await assert.rejects(
      api.sendDocument(chat, new InputFile(Buffer.alloc(10), "a.bin")),
      refused(400, "Bad Request: wrong file identifier/HTTP URL specified"),
    );
    tg.refuseUploads(1, { methods: ["sendPhoto"] });
    await api.sendDocument(chat, new InputFile(Buffer.alloc(10), "b.bin"));
    await assert.rejects(
      api.sendPhoto(chat, new InputFile(png(640, 480), "c.png")),
      refused(413, "Request Entity Too Large"),
    );
    await api.sendPhoto(chat, new InputFile(png(640, 480), "d.png"));
    assert.deepEqual(
      tg.botActions.items.map((a) => `${a.method} ${a.file?.name}`),
      ["sendDocument tall.png", "sendDocument h.png", "sendDocument b.bin", "sendPhoto d.png"],
    );
  });
});
