// The file relay's download against hostile and broken servers: whatever a server answers (a 10 GB Content-Length,
// an endless body, a redirect loop, a slow drip, garbage statuses), a download either stores at most
// MediaDownloadSize bytes or fails with a DownloadError, quickly, leaving no file behind; credentials never follow a
// redirect to another host.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { DownloadError, download } from "../src/core/files/download.ts";
import { mediaServerName, storeOnMediaServer } from "../src/core/files/media-server.ts";

const LIMITS = { maxBytes: 1000, maxRedirects: 3, headersTimeoutMs: 2000, idleTimeoutMs: 300, deadlineMs: 3000 };

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

function listen(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    }),
  );
}

describe("file download", () => {
  let dir: string;
  let site: { server: Server; url: string };
  let other: { server: Server; url: string };
  const seenAuth: (string | undefined)[] = [];
  const drips = new Set<ServerResponse>();
  let next = 0;
  const path = () => join(dir, `f${next++}`);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "download-test-"));
    other = await listen((request, response) => {
      seenAuth.push(request.headers.authorization);
      response.end("elsewhere");
    });
    site = await listen((request, response) => {
      const url = new URL(request.url ?? "/", "http://x");
      const n = Number(url.searchParams.get("n") ?? "0");
      switch (url.pathname) {
        case "/ok":
          response.end("x".repeat(n));
          return;
        case "/huge":
          // Claims 10 GB; never sends it.
          response.writeHead(200, { "content-length": String(10 * 1024 ** 3) });
          response.write("x");
          return;
        case "/endless": {
          response.writeHead(200);
          const pump = () => {
            while (response.write("y".repeat(4096))) {}
          };
          response.on("drain", pump);
          pump();
          return;
        }
        case "/loop":
          response.writeHead(302, { location: "/loop" });
          response.end();
          return;
        case "/away":
          response.writeHead(302, { location: `${other.url}/file` });
          response.end();
          return;
        case "/drip": {
          response.writeHead(200);
          drips.add(response);
          // A byte at once, then one every 2 s. undici's idle timer starts with the first byte of the body and is
          // checked on a clock of about a second: it gives up about 1.1 s in. A first byte only after a second put
          // that near 2.2 s, close enough to the 3 s deadline for a loaded machine to let the deadline win.
          response.write("z");
          const timer = setInterval(() => response.write("z"), 2000);
          response.on("close", () => clearInterval(timer));
          return;
        }
        default:
          response.writeHead(n >= 100 && n < 600 ? n : 404);
          response.end("status");
      }
    });
  });

  after(() => {
    for (const response of drips) response.destroy();
    site.server.closeAllConnections();
    site.server.close();
    other.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fails = async (target: string, reason: DownloadError["reason"]) => {
    const to = path();
    await assert.rejects(download({ url: `${site.url}${target}` }, to, LIMITS), (error: unknown) => {
      assert.ok(error instanceof DownloadError, String(error));
      assert.equal(error.reason, reason, error.message);
      assert.ok(!error.message.includes(site.url), "the URL is never in the message");
      return true;
    });
    assert.equal(existsSync(to), false, "nothing is left behind");
  };

  it("stores a file within the limit", async () => {
    const to = path();
    const result = await download({ url: `${site.url}/ok?n=1000` }, to, LIMITS);
    assert.equal(result.size, 1000);
    assert.equal(readFileSync(to, "utf8"), "x".repeat(1000));
  });

  it("refuses a 10 GB Content-Length before reading", () => fails("/huge", "too-large"));
  it("cuts an endless body at the limit", () => fails("/endless", "too-large"));
  it("ends a redirect loop", () => fails("/loop", "redirects"));
  it("gives up on a slow drip", () => fails("/drip", "network"));
  it("fails on an error status", () => fails("/status?n=500", "http-status"));

  it("does not carry credentials to another host", async () => {
    const to = path();
    await download({ url: `${site.url}/away`, headers: { authorization: "Bearer secret" } }, to, LIMITS);
    assert.deepEqual(seenAuth, [undefined]);
  });

  it("only ever stores at most maxBytes or fails with a DownloadError (fast-check)", async () => {
    const target = fc.oneof(
      fc.integer({ min: 0, max: 3000 }).map((n) => `/ok?n=${n}`),
      fc.integer({ min: 100, max: 599 }).map((n) => `/status?n=${n}`),
      fc.constantFrom("/huge", "/endless", "/loop", "/nowhere"),
    );
    await fc.assert(
      fc.asyncProperty(target, fc.integer({ min: 0, max: 2000 }), async (where, maxBytes) => {
        const to = path();
        try {
          const { size } = await download({ url: `${site.url}${where}` }, to, { ...LIMITS, maxBytes });
          assert.ok(size <= maxBytes);
          assert.equal(readFileSync(to).length, size);
        } catch (error) {
          assert.ok(error instanceof DownloadError, String(error));
          assert.equal(existsSync(to), false);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("names files on the media server as Matterbridge, never with a path (fast-check)", () => {
    assert.equal(mediaServerName("my photo (1).png"), "my_photo_1_.png");
    fc.assert(
      fc.property(fc.string(), (name) => {
        assert.match(mediaServerName(name), /^[A-Za-z0-9_]+(\.[A-Za-z0-9]{1,16})?$/);
      }),
    );
  });

  it("stores into MediaDownloadPath without writing through a planted link", async () => {
    const root = mkdtempSync(join(tmpdir(), "media-links-"));
    try {
      const source = join(root, "upload.bin");
      writeFileSync(source, "picture bytes");
      const media = join(root, "media");
      const settings = { upload: "", downloadPath: media, download: "https://media.example" };
      const first = await storeOnMediaServer(source, "a.png", settings);
      assert.equal(readFileSync(join(media, first.sha, "a.png"), "utf8"), "picture bytes");
      // Stored again (the same file twice): the file already there is the file.
      assert.deepEqual(await storeOnMediaServer(source, "a.png", settings), first);

      // A link planted where the next file goes: its target is never written.
      const victim = join(root, "victim");
      writeFileSync(victim, "keep me");
      symlinkSync(victim, join(media, first.sha, "b.png"));
      await assert.rejects(storeOnMediaServer(source, "b.png", settings));
      assert.equal(readFileSync(victim, "utf8"), "keep me");

      // A folder that is a link to elsewhere is refused.
      writeFileSync(source, "other bytes");
      const elsewhere = join(root, "elsewhere");
      mkdirSync(elsewhere);
      const sha = createHash("sha1").update("other bytes").digest("hex").slice(0, 8);
      symlinkSync(elsewhere, join(media, sha));
      await assert.rejects(storeOnMediaServer(source, "c.png", settings), /not a folder/);
      assert.equal(existsSync(join(elsewhere, "c.png")), false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
