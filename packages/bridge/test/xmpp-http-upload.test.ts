// The xmpp account's HTTP File Upload pieces on their own: the readers of the server's disco and slot replies and of
// shared files against any XML a hostile server or user could send (fast-check), and the uploader against a stand-in
// upload service (scripted IQ answers, a local HTTP server): the PUT's headers and body, each way it falls back to
// the link (max-file-size, a refused slot, an error status, a PUT nobody answers), bounded, with one log line a minute.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { waitUntil, withTimeout } from "@switchboard/testkit";
import xml, { type Element } from "@xmpp/xml";
import fc from "fast-check";
import pino from "pino";
import { RefusedUploads } from "../src/accounts/upload-fallback.ts";
import { HttpUploads, type HttpUploadsOptions } from "../src/accounts/xmpp/http-uploads.ts";
import { isServerFile, sharedFiles } from "../src/accounts/xmpp/incoming-files.ts";
import { NS } from "../src/accounts/xmpp/namespaces.ts";
import { parseDiscoItems, parseUploadInfo } from "../src/accounts/xmpp/upload-discovery.ts";
import { DEFAULT_PUT_LIMITS, putDeadlineMs } from "../src/accounts/xmpp/upload-put.ts";
import { parseSlot, slotFailure, slotFilename } from "../src/accounts/xmpp/upload-slot.ts";
import { type LocalFile, localFile, uploadedBytes } from "../src/core/files/local-file.ts";

const RUNS = { numRuns: 500 };
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must never appear
const CONTROL = /[\u0000-\u001f\u007f]/;

describe("reading the upload service's replies and shared files (fast-check)", () => {
  type Tree = { name: string; attrs: Record<string, string>; children: (Tree | string)[] };
  const hostile = fc.constantFrom(
    "https://upload.example.org/a/b.png",
    "http://127.0.0.1:5280/file_share/x/y%20z.png",
    "https://user:pw@upload.example.org/x",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "aesgcm://upload.example.org/x#key",
    "Bearer abc\r\nX-Injected: 1",
    "Basic ok==",
    "upload.example.org",
    "with space@x",
    "4096",
    "-1",
    "99999999999999999999",
    NS.httpUpload,
    "FORM_TYPE",
    "max-file-size",
    "Authorization",
    "authorization",
    "Cookie",
    "Expires",
    "X-Evil",
    "",
  );
  const attrs = fc.dictionary(
    fc.constantFrom("xmlns", "url", "name", "var", "jid", "node", "type"),
    fc.oneof(hostile, fc.constantFrom(NS.discoInfo, NS.discoItems, NS.dataForms, NS.oob), fc.string({ maxLength: 12 })),
  );
  const name = fc.constantFrom(
    "iq",
    "query",
    "item",
    "feature",
    "identity",
    "x",
    "field",
    "value",
    "slot",
    "put",
    "get",
    "header",
    "url",
    "desc",
  );
  const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.record({
      name,
      attrs,
      children: fc.array(fc.oneof({ depthSize: "small" }, hostile, fc.string({ maxLength: 10 }), tie("tree")), {
        maxLength: 5,
      }),
    }),
  }));
  const element = (node: Tree): Element =>
    xml(node.name, node.attrs, ...node.children.map((child) => (typeof child === "string" ? child : element(child))));
  const isHttpWithoutCredentials = (text: string) => {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "";
  };

  // Slot-shaped replies, so that most reach the URL and header checks: any URL text, any header name and value.
  const text = fc.oneof(hostile, fc.string({ maxLength: 20 }), fc.webUrl());
  const url = fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), text);
  const headerName = fc.oneof(
    fc.constantFrom("Authorization", "cookie", "EXPIRES"),
    hostile,
    fc.string({ maxLength: 8 }),
  );
  const lineBreaking = fc
    .tuple(
      fc.string({ maxLength: 8 }),
      fc.constantFrom("\r\n", "\n", "\r", "\u0000", "\t", "\u007f"),
      fc.string({ maxLength: 8 }),
    )
    .map((parts) => parts.join(""));
  const slotReply = fc
    .record({
      put: url,
      get: url,
      headers: fc.array(fc.tuple(headerName, fc.oneof(text, lineBreaking)), { maxLength: 5 }),
      extra: fc.array(tree, { maxLength: 2 }),
    })
    .map(({ put, get, headers, extra }) =>
      xml(
        "slot",
        { xmlns: NS.httpUpload },
        xml("put", { url: put }, ...headers.map(([name, value]) => xml("header", { name }, value))),
        xml("get", { url: get }),
        ...extra.map(element),
      ),
    );

  it("never throws; a slot has http(s) URLs without credentials and only allowed, one-line headers", () => {
    fc.assert(
      fc.property(fc.oneof(tree.map(element), slotReply), (node) => {
        // Under an iq, as replies come, and as the element itself.
        for (const reply of [xml("iq", { type: "result" }, node), node]) {
          const slot = parseSlot(reply);
          if (slot === undefined) continue;
          assert.ok(isHttpWithoutCredentials(slot.putUrl), slot.putUrl);
          assert.ok(isHttpWithoutCredentials(slot.getUrl), slot.getUrl);
          for (const [header, value] of Object.entries(slot.headers)) {
            assert.ok(["Authorization", "Cookie", "Expires"].includes(header), header);
            assert.ok(value !== "" && !CONTROL.test(value), JSON.stringify(value));
          }
        }
      }),
      RUNS,
    );
  });

  it("never throws on disco replies; items are distinct JIDs without white space, at most 20; sizes are whole", () => {
    fc.assert(
      fc.property(tree, (node) => {
        for (const reply of [xml("iq", { type: "result" }, element(node)), element(node)]) {
          const items = parseDiscoItems(reply);
          assert.ok(items.length <= 20);
          assert.equal(new Set(items).size, items.length);
          for (const jid of items) assert.ok(jid !== "" && !/\s/.test(jid) && !CONTROL.test(jid), jid);
          const info = parseUploadInfo(reply);
          if (info?.maxFileSize !== undefined)
            assert.ok(Number.isSafeInteger(info.maxFileSize) && info.maxFileSize >= 0);
        }
      }),
      RUNS,
    );
  });

  it("reads shared files from any out-of-band data: http(s) URLs, plain names; never throws", () => {
    const oob = fc.array(
      fc.record({
        url: fc.oneof(hostile, fc.webUrl(), fc.string({ maxLength: 30 })),
        desc: fc.string({ maxLength: 10 }),
      }),
      { maxLength: 4 },
    );
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string({ maxLength: 20 })), oob, (text, shared) => {
        const { files, text: rest } = sharedFiles(text, shared);
        assert.ok(rest === text || rest === "");
        for (const file of files) {
          assert.ok(isHttpWithoutCredentials(file.URL), file.URL);
          assert.ok(file.Name !== "" && !file.Name.includes("/") && !CONTROL.test(file.Name), file.Name);
        }
      }),
      RUNS,
    );
  });

  it("names slots with one printable path segment, and describes any failure without throwing", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.anything(), (name, failure) => {
        const filename = slotFilename(name);
        assert.ok(filename !== "" && !/[/\\]/.test(filename) && !CONTROL.test(filename), filename);
        assert.ok([...filename].length <= 200);
        assert.equal(typeof slotFailure(failure), "string");
      }),
      RUNS,
    );
  });
});

describe("the files the bridge fetches from XMPP", () => {
  const hosts = { domain: "example.org", serverHost: "xmpp.example.net" };
  it("are the server's own: its domain, a subdomain, the Server host; nothing else", () => {
    assert.equal(isServerFile("https://example.org/f/a.png", hosts), true);
    assert.equal(isServerFile("https://upload.EXAMPLE.org:5281/f/a.png", hosts), true);
    assert.equal(isServerFile("http://xmpp.example.net/a.png", hosts), true);
    assert.equal(isServerFile("https://notexample.org/a.png", hosts), false);
    assert.equal(isServerFile("http://169.254.169.254/latest/meta-data/", hosts), false);
    assert.equal(isServerFile("https://example.org.evil.net/a.png", hosts), false);
    assert.equal(isServerFile("ftp://example.org/a.png", hosts), false);
    assert.equal(isServerFile("https://user:pw@example.org/a.png", hosts), false);
  });

  it("take the URL alone as no text, and the last path segment as the name", () => {
    const url = "https://upload.example.org/abc/caf%C3%A9%20au%20lait.png";
    assert.deepEqual(
      sharedFiles(` ${url} `, [{ url, desc: "" }]).files.map((f) => f.Name),
      ["café au lait.png"],
    );
    assert.equal(sharedFiles(url, [{ url, desc: "" }]).text, "");
    assert.equal(sharedFiles(`look: ${url}`, [{ url, desc: "" }]).text, `look: ${url}`);
    assert.deepEqual(sharedFiles("x", [{ url: "aesgcm://upload.example.org/a#k", desc: "" }]).files, []);
  });
});

/** A stand-in upload service: a local HTTP server whose answer to each PUT the test decides. */
async function uploadServer(answer: (request: IncomingMessage, body: Buffer, response: ServerResponse) => void) {
  const puts: { headers: IncomingMessage["headers"]; body: Buffer }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      puts.push({ headers: request.headers, body });
      answer(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, puts };
}

/** An upload service that takes a PUT's headers and then neither reads its body nor answers. */
async function stallingServer() {
  let requests = 0;
  const server = createServer((request) => {
    requests++;
    request.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

const folder = mkdtempSync(join(tmpdir(), "xmpp-upload-"));
after(() => rmSync(folder, { recursive: true, force: true }));
let fileCount = 0;
function fileOf(name: string, bytes: Buffer, link = ""): LocalFile {
  const path = join(folder, String(++fileCount));
  writeFileSync(path, bytes);
  return localFile(path, { name, size: bytes.length, comment: "", link });
}

interface Script {
  /** The service's max-file-size, or no service at all. */
  service: { maxFileSize?: number } | undefined;
  slot?(request: Element): Element;
}

/** An HttpUploads over scripted IQ answers; records the IQs asked and the log lines. */
function uploader(
  script: Script,
  options: { alive?: () => boolean; now?: () => number; put?: HttpUploadsOptions["put"] } = {},
) {
  const asked: { to: string; name: string }[] = [];
  const lines: { msg: string }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const get = async (to: string, payload: Element): Promise<Element> => {
    asked.push({ to, name: payload.name });
    const reply = (...children: Element[]) => xml("iq", { type: "result", from: to }, ...children);
    if (payload.is("query", NS.discoItems)) {
      return reply(
        xml(
          "query",
          { xmlns: NS.discoItems },
          xml("item", { jid: "conference.hs" }),
          xml("item", { jid: "upload.hs" }),
        ),
      );
    }
    if (payload.is("query", NS.discoInfo)) {
      if (to !== "upload.hs" || script.service === undefined) return reply(xml("query", { xmlns: NS.discoInfo }));
      const max = script.service.maxFileSize;
      const form = xml(
        "x",
        { xmlns: NS.dataForms, type: "result" },
        xml("field", { var: "FORM_TYPE", type: "hidden" }, xml("value", {}, NS.httpUpload)),
        ...(max === undefined ? [] : [xml("field", { var: "max-file-size" }, xml("value", {}, String(max)))]),
      );
      return reply(xml("query", { xmlns: NS.discoInfo }, xml("feature", { var: NS.httpUpload }), form));
    }
    if (payload.is("request", NS.httpUpload) && script.slot) return reply(script.slot(payload));
    throw new Error(`unexpected IQ ${payload.toString()}`);
  };
  const refused = new RefusedUploads(logger, options.now);
  const uploads = new HttpUploads({
    domain: "hs",
    get,
    alive: options.alive ?? (() => true),
    logger,
    refused,
    put: options.put ?? { headersTimeoutMs: 500, idleTimeoutMs: 500, deadlineFloorMs: 1_000, minBytesPerSecond: 1e9 },
  });
  return { uploads, asked, lines };
}

const slotAt =
  (base: string, headers: [string, string][] = []) =>
  (request: Element) =>
    xml(
      "slot",
      { xmlns: NS.httpUpload },
      xml(
        "put",
        { url: `${base}/put/${request.attrs.filename}` },
        ...headers.map(([name, value]) => xml("header", { name }, value)),
      ),
      xml("get", { url: `${base}/get/${request.attrs.filename}` }),
    );

describe("uploading to the server's HTTP File Upload service", () => {
  it("PUTs the bytes with the slot's allowed headers, the size and the type; discovers the service once", async () => {
    const service = await uploadServer((_request, _body, response) => response.writeHead(201).end());
    const headers: [string, string][] = [
      ["Authorization", "Bearer token"],
      ["X-Evil", "1"],
      ["Cookie", "a=b\r\nX-Injected: 1"],
      ["expires", "Tue, 01 Dec 2026 00:00:00 GMT"],
    ];
    const { uploads, asked } = uploader({ service: { maxFileSize: 100 }, slot: slotAt(service.base, headers) });
    const picture = Buffer.from("\x89PNG a picture");

    assert.equal(await uploads.upload(fileOf("cat.png", picture)), `${service.base}/get/cat.png`);
    assert.equal(await uploads.upload(fileOf("dog.png", picture)), `${service.base}/get/dog.png`);
    const [put] = service.puts;
    assert.deepEqual(put?.body, picture);
    assert.equal(put?.headers["authorization"], "Bearer token");
    assert.equal(put?.headers["expires"], "Tue, 01 Dec 2026 00:00:00 GMT");
    assert.equal(put?.headers["x-evil"], undefined);
    assert.equal(put?.headers["cookie"], undefined, "a header value with a line break is dropped");
    assert.equal(put?.headers["x-injected"], undefined);
    assert.equal(put?.headers["content-type"], "image/png");
    assert.equal(put?.headers["content-length"], String(picture.length));
    assert.equal(asked.filter((iq) => iq.name === "query").length, 4, "own info, items, two items' info: once");
    assert.equal(asked.filter((iq) => iq.name === "request").length, 2);
  });

  it("falls back to the link for a file over max-file-size (no slot asked), a refused slot, an error status", async () => {
    const service = await uploadServer((_request, _body, response) => response.writeHead(500).end("no"));
    let refuse = false;
    const { uploads, asked, lines } = uploader(
      {
        service: { maxFileSize: 10 },
        slot: (request) => {
          if (refuse)
            throw Object.assign(new Error("not-acceptable"), {
              name: "StanzaError",
              condition: "not-acceptable",
              text: "File too large",
            });
          return slotAt(service.base)(request);
        },
      },
      { now: () => 0 },
    );
    const big = fileOf("big.png", Buffer.alloc(11), "https://x.example/big.png");
    assert.equal(await uploads.upload(big), undefined);
    assert.equal(
      uploadedBytes([big, fileOf("other.png", Buffer.alloc(7))]),
      7,
      "a refused file's bytes are not counted",
    );
    assert.equal(asked.filter((iq) => iq.name === "request").length, 0);
    assert.equal(await uploads.upload(fileOf("error.png", Buffer.alloc(5))), undefined);
    refuse = true;
    assert.equal(await uploads.upload(fileOf("refused.png", Buffer.alloc(5))), undefined);
    const warnings = lines.filter((line) => line.msg.includes("not uploaded"));
    // One line a minute: the two later refusals are counted, not logged.
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]?.msg ?? "",
      /file big\.png not uploaded: refused \(larger than the server's upload limit \(11 > 10 bytes\)\); its link is sent instead/,
    );
  });

  it("gives a PUT nobody answers up within its bounds", async () => {
    const service = await uploadServer(() => {}); // reads the body, never answers
    const { uploads, lines } = uploader({ service: {}, slot: slotAt(service.base) });
    const upload = uploads.upload(fileOf("slow.png", Buffer.alloc(5)));
    assert.equal(await withTimeout(upload, 10_000, "the bounded PUT"), undefined);
    assert.match(
      lines.find((line) => line.msg.includes("not uploaded"))?.msg ?? "",
      /the PUT to the upload service failed: (no answer to the PUT|not uploaded within 1 s)/,
    );
  });

  it("allows a PUT 30 s plus the file's size at 256 KiB/s", () => {
    assert.equal(putDeadlineMs(0, DEFAULT_PUT_LIMITS), 30_000);
    assert.equal(putDeadlineMs(256 * 1024, DEFAULT_PUT_LIMITS), 31_000);
    assert.equal(putDeadlineMs(1_000_000, DEFAULT_PUT_LIMITS), 33_815);
    assert.equal(putDeadlineMs(100 * 1024 * 1024, DEFAULT_PUT_LIMITS), 430_000);
    const small = { ...DEFAULT_PUT_LIMITS, deadlineFloorMs: 200, minBytesPerSecond: 1000 };
    assert.equal(putDeadlineMs(1, small), 201);
    assert.equal(putDeadlineMs(1500, small), 1_700);
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        const [smaller, larger] = a <= b ? [a, b] : [b, a];
        return putDeadlineMs(smaller, DEFAULT_PUT_LIMITS) <= putDeadlineMs(larger, DEFAULT_PUT_LIMITS);
      }),
    );
  });

  it("gives a stalled PUT up at its deadline, which grows with the file's size", async () => {
    // The service takes the request and then stalls: it neither reads the body nor answers. The waits for headers
    // and between chunks are a minute here, so only the whole upload's deadline can end it: 200 ms + 1 MiB at 2 MiB/s.
    const service = await stallingServer();
    const put = {
      headersTimeoutMs: 60_000,
      idleTimeoutMs: 60_000,
      deadlineFloorMs: 200,
      minBytesPerSecond: 2 * 1024 * 1024,
    };
    const { uploads, lines } = uploader({ service: {}, slot: slotAt(service.base) }, { put });
    const upload = uploads.upload(fileOf("stalled.bin", Buffer.alloc(1024 * 1024)));
    assert.equal(await withTimeout(upload, 10_000, "the stalled PUT"), undefined);
    assert.ok(service.requests() > 0, "the PUT reached the service");
    assert.match(
      lines.find((line) => line.msg.includes("not uploaded"))?.msg ?? "",
      /file stalled\.bin not uploaded: refused \(the PUT to the upload service failed: not uploaded within 0\.7 s\)/,
    );
  });

  it("sends links when the server has no upload service, saying so once", async () => {
    const { uploads, lines, asked } = uploader({ service: undefined });
    const files = [fileOf("a.png", Buffer.alloc(5)), fileOf("b.png", Buffer.alloc(5))];
    assert.equal(await uploads.upload(files[0] as LocalFile), undefined);
    assert.equal(await uploads.upload(files[1] as LocalFile), undefined);
    assert.equal(lines.filter((line) => line.msg.includes("offers no HTTP File Upload")).length, 1);
    assert.equal(asked.filter((iq) => iq.name === "request").length, 0);
    assert.equal(uploadedBytes(files), 0, "links are not counted as uploaded bytes");
  });

  it("throws when the connection is lost meanwhile: the message is retried, the file not given up", async () => {
    let alive = true;
    const { uploads, lines } = uploader(
      {
        service: {},
        slot: () => {
          alive = false;
          throw new Error("disconnected");
        },
      },
      { alive: () => alive },
    );
    await assert.rejects(uploads.upload(fileOf("c.png", Buffer.alloc(5))), /connection was lost/);
    assert.equal(lines.filter((line) => line.msg.includes("not uploaded")).length, 0);
  });

  it("cuts a PUT in flight short when the connection goes away, without giving the file up", async () => {
    const service = await uploadServer(() => {}); // never answers
    const minute = { headersTimeoutMs: 60_000, idleTimeoutMs: 60_000, deadlineFloorMs: 60_000, minBytesPerSecond: 1e9 };
    const { uploads, lines } = uploader({ service: {}, slot: slotAt(service.base) }, { put: minute });
    const upload = uploads.upload(fileOf("d.png", Buffer.alloc(5)));
    await waitUntil(() => service.puts.length > 0, { timeoutMs: 10_000, what: "the PUT reaching the service" });
    uploads.close();
    await assert.rejects(withTimeout(upload, 10_000, "the cancelled PUT"), /connection was lost/);
    assert.equal(lines.filter((line) => line.msg.includes("not uploaded")).length, 0);
  });
});
