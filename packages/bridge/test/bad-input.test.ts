// Property-based bad input against every route of a real bridge process: random methods, paths, headers, content
// types and bodies. Every answer must be a designed status with a {"message"} body, and the process must live on.
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { before, describe, it } from "node:test";
import { type ManagedProcess, withTimeout } from "@switchboard/testkit";
import fc from "fast-check";
import { startBridgeProcess } from "./bridge-process.ts";
import { http, KEYS, suiteTeardown } from "./helpers.ts";

const TOKEN = "prop-token";
const ROUTES = ["/api/health", "/api/messages", "/api/stream", "/api/websocket", "/api/message"];
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];
const DESIGNED = new Set([200, 400, 401, 404, 405, 413, 414, 415, 426]);

interface Probe {
  status: number;
  contentType: string;
  body: string;
}

/** One request; a 200 stream is read up to its first line and then closed. */
function probe(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<Probe> {
  return withTimeout(
    new Promise<Probe>((resolve, reject) => {
      // Content-Length is always set: Node's client sends chunked bodies otherwise, and its own parser then trips
      // over a server that answers a GET before reading its body (a client quirk, not a server answer).
      const withLength = body ? { ...headers, "content-length": String(body.length) } : headers;
      const req = request(`${base}${path}`, { method, headers: withLength, agent: false }, (res) => {
        const contentType = String(res.headers["content-type"] ?? "");
        let text = "";
        res.setEncoding("utf8");
        const streaming = res.statusCode === 200 && path.startsWith("/api/stream");
        res.on("data", (chunk: string) => {
          text += chunk;
          if (streaming && text.includes("\n")) {
            req.destroy();
            resolve({ status: 200, contentType, body: text });
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType, body: text }));
        res.on("error", () => {});
      });
      req.on("error", reject);
      req.end(body);
    }),
    10_000,
    `${method} ${path}`,
  );
}

const contentTypes = fc.oneof(
  fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
    "",
    ";;;",
    "application/json; charset=latin1",
  ),
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
);

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const fieldValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.string()),
  jsonValue,
);
const messageLike = fc.record(
  {
    text: fc.oneof(fc.string(), fieldValue),
    username: fieldValue,
    gateway: fc.oneof(fc.constantFrom("gw", "other", "", "GW"), fieldValue),
    event: fc.oneof(
      fc.constantFrom("", "user_action", "get_channel_members", "failure", "msg_delete", "api_connected"),
      fieldValue,
    ),
    parent_id: fieldValue,
    userid: fieldValue,
    avatar: fieldValue,
    Extra: fc.oneof(fc.constant(null), jsonValue),
    channel: fieldValue,
    id: fieldValue,
  },
  { requiredKeys: [] },
);

const bodies = fc.oneof(
  messageLike.map((m) => Buffer.from(JSON.stringify(m))),
  jsonValue.map((v) => Buffer.from(JSON.stringify(v))),
  fc.string().map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc
    .integer({ min: 0, max: 3000 })
    .map((n) => Buffer.from(JSON.stringify({ text: "x".repeat(n), username: "u", gateway: "gw" }))),
);

const authHeaders = fc.oneof(
  fc.constant(undefined),
  fc.constant(`Bearer ${TOKEN}`),
  fc.constant(`bearer ${TOKEN}`),
  fc.constantFrom("Bearer", "Bearer ", "Basic abc", TOKEN, `Bearer ${TOKEN} extra`, `Bearer  ${TOKEN}x`),
  fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
);

const requests = fc.record({
  account: fc.constantFrom("open", "locked"),
  method: fc.constantFrom(...METHODS),
  path: fc.oneof(
    fc.constantFrom(...ROUTES),
    fc.constantFrom(...ROUTES).chain((r) => fc.webSegment().map((s) => `${r}/${s}`)),
    fc.webPath().map((p) => (p.startsWith("/") ? p : `/${p}`)),
    fc.constantFrom(...ROUTES).chain((r) => fc.webQueryParameters().map((q) => `${r}?${q}`)),
  ),
  contentType: fc.option(contentTypes),
  authorization: authHeaders,
  accept: fc.option(fc.constantFrom("*/*", "text/html", "application/json", "garbage")),
  body: fc.option(bodies),
});

describe("bad input against every route", () => {
  let bridge: ManagedProcess;
  const base: Record<string, string> = {};
  const teardown = suiteTeardown();

  before(async () => {
    const started = await startBridgeProcess(
      `[api.open]\nBindAddress = "127.0.0.1:0"\nBodyLimit = 2048\nBuffer = 5\n` +
        `[api.locked]\nBindAddress = "127.0.0.1:0"\nToken = "${TOKEN}"\nBuffer = 5\n` +
        `[[gateway]]\nname = "gw"\nenable = true\n[[gateway.inout]]\naccount = "api.open"\n[[gateway.inout]]\naccount = "api.locked"\n`,
      teardown,
    );
    bridge = started.process;
    base["open"] = started.url("api.open");
    base["locked"] = started.url("api.locked");
  });

  const alive = async () => {
    assert.ok(bridge.running, `the bridge died:\n${bridge.tail()}`);
    const health = await http(`${base["open"]}/api/health`);
    assert.equal(health.body, "OK");
  };

  it("answers random requests with a designed status and a {message} body", async () => {
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        const headers: Record<string, string> = {};
        if (r.contentType !== null) headers["content-type"] = r.contentType;
        if (r.authorization !== undefined) headers["authorization"] = r.authorization;
        if (r.accept !== null) headers["accept"] = r.accept;
        const answer = await probe(base[r.account] ?? "", r.method, r.path, headers, r.body ?? undefined);
        assert.ok(DESIGNED.has(answer.status), `${r.method} ${r.path} -> ${answer.status} ${answer.body}`);
        if (answer.status !== 200 && r.method !== "HEAD") {
          assert.match(answer.contentType, /^application\/json/);
          const parsed = JSON.parse(answer.body);
          assert.deepEqual(Object.keys(parsed), ["message"]);
          assert.equal(typeof parsed.message, "string");
        }
        if (answer.status === 200 && r.method === "POST") {
          assert.deepEqual(Object.keys(JSON.parse(answer.body)), KEYS);
        }
        if (r.account === "locked" && answer.status !== 401) {
          assert.match(r.authorization ?? "", new RegExp(`^bearer +${TOKEN} *$`, "i"));
        }
      }),
      { numRuns: 300 },
    );
    await alive();
  });

  it("answers random JSON messages posted with the right content type with 200 or a designed 400", async () => {
    await fc.assert(
      fc.asyncProperty(messageLike, async (message) => {
        const answer = await http(`${base["open"]}/api/message`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(message),
        });
        assert.ok([200, 400].includes(answer.status), `${answer.status} ${answer.body}`);
        const parsed = JSON.parse(answer.body);
        if (answer.status === 200) {
          assert.deepEqual(Object.keys(parsed), KEYS);
          assert.equal(parsed.gateway, "gw");
        } else {
          assert.equal(typeof parsed.message, "string");
        }
      }),
      { numRuns: 300 },
    );
    await alive();
  });

  it("survives garbage on the socket and websocket frames of any kind", async () => {
    const port = Number(new URL(base["open"] ?? "").port);
    for (const garbage of [
      "\x00\x01\x02\r\n\r\n",
      "GET / HTTP/9.9\r\n\r\n",
      "POST /api/message HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
    ]) {
      await withTimeout(
        new Promise<void>((resolve) => {
          const socket = connect(port, "127.0.0.1", () => socket.end(garbage));
          socket.on("data", () => {});
          socket.on("close", () => resolve());
          socket.on("error", () => resolve());
        }),
        10_000,
        "garbage connection",
      );
    }
    const { default: WebSocket } = await import("ws");
    const ws = new WebSocket(`${base["open"]?.replace("http", "ws")}/api/websocket`);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          messageLike.map((m) => JSON.stringify(m)),
          fc.string(),
          fc.uint8Array().map((a) => Buffer.from(a)),
        ),
        async (frame) => {
          await new Promise<void>((resolve, reject) => ws.send(frame, (error) => (error ? reject(error) : resolve())));
        },
      ),
      { numRuns: 200 },
    );
    ws.close();
    await alive();
  });

  it("lets a client still writing an over-limit body read the 413 naming BodyLimit (fetch, plain and chunked)", async () => {
    const body = JSON.stringify({ text: "x".repeat(8 * 1024 * 1024), username: "u", gateway: "gw" });
    const chunked = () =>
      new ReadableStream({
        start(controller) {
          for (let i = 0; i < body.length; i += 65536) controller.enqueue(Buffer.from(body.slice(i, i + 65536)));
          controller.close();
        },
      });
    for (const payload of [() => body, chunked]) {
      const answer = await fetch(`${base["open"]}/api/message`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: payload(),
        duplex: "half",
      } as RequestInit);
      assert.equal(answer.status, 413);
      const { message } = (await answer.json()) as { message: string };
      assert.match(message, /BodyLimit is 2048 bytes for \[api\.open\]/);
    }
    await alive();
  });
});
