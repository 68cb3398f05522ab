// Reading a platform's refusal of an upload: Discord's error bodies (any JSON, or bytes, as discord.js hands them on)
// and the Bot API's (any error_code and description) never make the reading throw, and only refusals of the files
// count; the refusal log line is written at most once a minute per account, counting the quiet ones.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { DiscordAPIError } from "discord.js";
import fc from "fast-check";
import { GrammyError } from "grammy";
import { pino } from "pino";
import { uploadRefusal as discordRefusal } from "../src/accounts/discord/upload-refusal.ts";
import { mayRetryAsDocument, uploadRefusal as telegramRefusal } from "../src/accounts/telegram/upload-refusal.ts";
import { RefusedUploads, refusedFileMessage } from "../src/accounts/upload-fallback.ts";
import type { LocalFile } from "../src/core/files/local-file.ts";

const RUNS = { numRuns: 500 };
const REQUEST = { files: undefined, body: undefined };

const discordError = (body: unknown, code: unknown, status: number): unknown =>
  new DiscordAPIError(body as never, code as never, status, "POST", "/channels/1/messages", REQUEST);

/** A DiscordAPIError holding any body at all (discord.js's own constructor throws on some: not under test here). */
const anyDiscordError = (body: unknown, code: unknown, status: number): unknown =>
  Object.assign(Object.create(DiscordAPIError.prototype), { rawError: body, code, status });

const telegramError = (answer: unknown) =>
  new GrammyError("Call to 'sendPhoto' failed!", answer as never, "sendPhoto", {});
/** A GrammyError holding any answer's fields (grammy's own constructor throws on some: not under test here). */
const anyTelegramError = (answer: Record<string, unknown>): unknown =>
  Object.assign(Object.create(GrammyError.prototype), {
    error_code: answer["error_code"],
    description: answer["description"],
  });

/** Any JSON, JSON shaped nearly like Discord's error bodies, or bytes (a proxy's HTML page). */
const discordBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({
    message: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
    code: fc.oneof(fc.constantFrom(40005, 50013, 50035), fc.jsonValue({ maxDepth: 1 })),
    errors: fc.oneof(
      fc.dictionary(
        fc.oneof(fc.constantFrom("files", "files[0]", "attachments", "content"), fc.string()),
        fc.jsonValue(),
      ),
      fc.jsonValue({ maxDepth: 3 }),
    ),
  }),
  fc.uint8Array().map((bytes) => bytes.buffer),
);

describe("reading upload refusals", () => {
  it("never throws on a hostile Discord body, and answers a string or undefined", () => {
    fc.assert(
      fc.property(
        discordBody,
        fc.jsonValue({ maxDepth: 1 }),
        fc.integer({ min: 100, max: 599 }),
        (body, code, status) => {
          const error = anyDiscordError(body, code, status);
          const reason = discordRefusal(error);
          assert.ok(reason === undefined || typeof reason === "string");
        },
      ),
      RUNS,
    );
  });

  it("takes Discord's refusals of files, and nothing else", () => {
    const tooLarge = discordError({ message: "Request entity too large", code: 40005 }, 40005, 413);
    assert.equal(discordRefusal(tooLarge), "HTTP 413, code 40005: Request entity too large");
    const permission = discordError({ message: "Missing Permissions", code: 50013 }, 50013, 403);
    assert.match(
      discordRefusal(permission) ?? "",
      /^HTTP 403, code 50013: Missing Permissions \(does the bot have Attach Files in the channel\?\)$/,
    );
    const form = {
      message: "Invalid Form Body",
      code: 50035,
      errors: {
        files: {
          "0": { _errors: [{ code: "BINARY_TYPE_MAX_SIZE", message: "File cannot be larger than 10240.00 kb." }] },
        },
      },
    };
    assert.equal(
      discordRefusal(discordError(form, 50035, 400)),
      "HTTP 400, code 50035: Invalid Form Body: File cannot be larger than 10240.00 kb.",
    );
    const html = new TextEncoder().encode("<html>413 Request Entity Too Large</html>").buffer;
    assert.equal(discordRefusal(discordError(html, undefined, 413)), "HTTP 413: Request Entity Too Large");
    // Not about the files: the text itself, a rate limit, the token, a missing channel.
    const content = {
      message: "Invalid Form Body",
      code: 50035,
      errors: { content: { _errors: [{ code: "X", message: "too long" }] } },
    };
    assert.equal(discordRefusal(discordError(content, 50035, 400)), undefined);
    assert.equal(discordRefusal(discordError({ message: "Unknown Channel", code: 10003 }, 10003, 404)), undefined);
    assert.equal(discordRefusal(discordError({ message: "401: Unauthorized", code: 0 }, 0, 401)), undefined);
    assert.equal(discordRefusal(new Error("socket hang up")), undefined);
  });

  it("never throws on a hostile Bot API answer", () => {
    const answer = fc.oneof(
      fc.record({
        ok: fc.jsonValue(),
        error_code: fc.jsonValue({ maxDepth: 1 }),
        description: fc.jsonValue({ maxDepth: 1 }),
      }),
      fc.record({ error_code: fc.integer({ min: 100, max: 599 }), description: fc.oneof(fc.string(), fc.jsonValue()) }),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
    );
    fc.assert(
      fc.property(answer, (body) => {
        const error = anyTelegramError(body);
        const reason = telegramRefusal(error);
        assert.ok(reason === undefined || typeof reason === "string");
        assert.equal(typeof mayRetryAsDocument(error), "boolean");
      }),
      RUNS,
    );
  });

  it("takes the Bot API's refusals of files; only a photo refused for itself is retried as a document", () => {
    const big = telegramError({ ok: false, error_code: 413, description: "Request Entity Too Large" });
    assert.equal(telegramRefusal(big), "413 Request Entity Too Large");
    assert.equal(mayRetryAsDocument(big), false);
    const dimensions = telegramError({
      ok: false,
      error_code: 400,
      description: "Bad Request: PHOTO_INVALID_DIMENSIONS",
    });
    assert.equal(telegramRefusal(dimensions), "400 Bad Request: PHOTO_INVALID_DIMENSIONS");
    assert.equal(mayRetryAsDocument(dimensions), true);
    for (const code of [401, 403, 429, 500]) {
      assert.equal(telegramRefusal(telegramError({ ok: false, error_code: code, description: "x" })), undefined);
    }
  });
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino(sink) };
}

const file = (name: string, link: string) => ({ name, link }) as LocalFile;

describe("the refusal log", () => {
  it("writes one line a minute per account, then counts the quiet refusals; remembers each refused file", () => {
    const { lines, logger } = capture();
    let now = 0;
    const refused = new RefusedUploads(logger, () => now);
    const first = file("big.png", "https://cdn.example/big.png");
    refused.record([first], "HTTP 413, code 40005: Request entity too\nlarge");
    for (let n = 0; n < 5; n++) refused.record([file(`more${n}.png`, "")], "413 Request Entity Too Large");
    assert.equal(lines.length, 1);
    assert.equal(
      lines[0]?.msg,
      "file big.png not uploaded: refused (HTTP 413, code 40005: Request entity too large); its link is sent instead",
    );
    assert.ok(refused.has(first));
    assert.ok(!refused.has(file("big.png", "")), "another file of the same name was not refused");
    now = 60_000;
    refused.record([file("a.png", "https://x/a"), file("b.txt", "")], "HTTP 400");
    assert.equal(lines.length, 2);
    assert.equal(
      lines[1]?.msg,
      "files a.png, b.txt not uploaded: refused (HTTP 400); their links, where they have one, are sent instead " +
        "(and 5 more refused since the last such line)",
    );
  });
});

describe("a refused file's message of its own", () => {
  it("is the nick and the link (with the file's comment), the link alone without a nick, nothing without a link", () => {
    const linked = { name: "a.png", link: "https://cdn.example/a.png", comment: "" } as LocalFile;
    assert.equal(refusedFileMessage(linked, " <dana> "), "<dana> https://cdn.example/a.png");
    assert.equal(refusedFileMessage(linked, ""), "https://cdn.example/a.png");
    assert.equal(
      refusedFileMessage({ ...linked, comment: "a cat" }, "<dana>"),
      "<dana> a cat : https://cdn.example/a.png",
    );
    assert.equal(refusedFileMessage({ ...linked, link: "" }, "<dana>"), "");
  });
});
