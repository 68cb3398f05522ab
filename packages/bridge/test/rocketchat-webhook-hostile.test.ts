// Hostile input against a rocketchat account's outgoing webhook receiver (WebhookBindAddress) in the real bin:
// random methods, paths, content types, tokens and bodies (nearly-right outgoing webhook calls, any JSON, any bytes)
// get a designed status with a JSON {"message"} (200 with {} for an accepted call); bodies over the bound get 413,
// a malformed request line 400 on the raw socket, CONNECT 405; the process lives on and still relays.
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { before, describe, it } from "node:test";
import {
  type RocketChatHuman,
  type RocketChatSimulator,
  startRocketChatSimulator,
  withTimeout,
} from "@switchboard/testkit";
import fc from "fast-check";
import type { Message } from "../src/message.ts";
import { apiGatewayConfig, startWithApiStream } from "./api-gateway.ts";
import type { BridgeProcess } from "./bridge-process.ts";
import { type StreamClient, suiteTeardown } from "./helpers.ts";
import { nearly } from "./nearly.ts";

const TOKEN = "hook-token";
const DESIGNED = new Set([200, 400, 401, 403, 405, 413, 415]);

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function probe(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return withTimeout(
    new Promise<Answer>((resolve, reject) => {
      const withLength = body ? { ...headers, "content-length": String(body.length) } : headers;
      const req = request(url, { method, headers: withLength, agent: false }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: text }),
        );
      });
      req.on("error", reject);
      req.end(body);
    }),
    10_000,
    `${method} ${url}`,
  );
}

/** What the socket got back for raw bytes, until the server closes it. */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return withTimeout(
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(bytes));
      let got = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        got += chunk;
      });
      socket.on("close", () => resolve(got));
      socket.on("error", reject);
    }),
    10_000,
    "a raw request",
  );
}

const call = fc.record(
  {
    token: fc.oneof(fc.constant(TOKEN), nearly(fc.string({ maxLength: 20 }))),
    channel_name: fc.oneof(fc.constantFrom("general", "random", "#general", "elsewhere", ""), nearly(fc.string())),
    channel_id: nearly(fc.string({ maxLength: 20 })),
    message_id: nearly(fc.string({ maxLength: 20 })),
    user_id: nearly(fc.string({ maxLength: 20 })),
    user_name: nearly(fc.string({ maxLength: 20 })),
    text: nearly(fc.string({ maxLength: 200 })),
    timestamp: nearly(fc.constantFrom(new Date(0).toISOString(), "yesterday", "")),
    tmid: nearly(fc.string({ maxLength: 20 })),
    isEdited: nearly(fc.boolean()),
    alias: nearly(fc.string({ maxLength: 20 })),
    siteUrl: nearly(fc.constantFrom("http://127.0.0.1:1", "javascript:alert(1)", "")),
  },
  { requiredKeys: [] },
);

const bodies = fc.oneof(
  call.map((c) => Buffer.from(JSON.stringify(c))),
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
  fc.string().map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
);

const requests = fc.record({
  method: fc.constantFrom("POST", "POST", "POST", "GET", "PUT", "DELETE", "HEAD", "OPTIONS"),
  path: fc.oneof(
    fc.constant("/"),
    fc.webPath().map((p) => (p.startsWith("/") ? p : `/${p}`)),
  ),
  contentType: fc.option(
    fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "", "multipart/form-data"),
  ),
  body: fc.option(bodies),
});

describe("rocketchat outgoing webhook receiver under hostile input", () => {
  const teardown = suiteTeardown();
  let rc: RocketChatSimulator;
  let ana: RocketChatHuman;
  let bridge: BridgeProcess;
  let hookUrl: string;
  let stream: StreamClient;
  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: 10_000, what: "an api message" });

  before(async () => {
    rc = await startRocketChatSimulator(teardown);
    const hookbot = rc.createBot("hookbot", "unused");
    ana = rc.createUser("ana");
    rc.createRoom("general", [ana.user, hookbot]);
    const incoming = rc.createIncomingWebhook({ postAs: hookbot, channel: "general" });
    const table = `[rocketchat.rc]\nWebhookURL = "${incoming}"\nWebhookBindAddress = "127.0.0.1:0"\nToken = "${TOKEN}"\nNick = "hookbot"\n`;
    ({ bridge, stream } = await startWithApiStream(
      apiGatewayConfig(table, { account: "rocketchat.rc", channels: ["#general"] }),
      teardown,
    ));
    hookUrl = bridge.url("rocketchat.rc");
    rc.createOutgoingWebhook({ url: hookUrl, token: TOKEN });
  });

  it("answers every request with a designed status and a JSON body", async () => {
    await fc.assert(
      fc.asyncProperty(requests, async ({ method, path, contentType, body }) => {
        const headers: Record<string, string> = contentType === null ? {} : { "content-type": contentType };
        const answer = await probe(`${hookUrl}${path}`, method, headers, body ?? undefined);
        assert.ok(DESIGNED.has(answer.status), `${method} ${path} answered ${answer.status}: ${answer.body}`);
        if (method === "HEAD") return;
        assert.match(answer.contentType, /^application\/json/);
        const parsed = JSON.parse(answer.body) as Record<string, unknown>;
        if (answer.status === 200) assert.deepEqual(parsed, {});
        else assert.equal(typeof parsed.message, "string");
      }),
      { numRuns: 150 },
    );
  });

  it("refuses bodies over the bound, malformed requests and CONNECT, and still relays afterwards", async () => {
    const big = Buffer.from(JSON.stringify({ token: TOKEN, text: "x".repeat(300 * 1024) }));
    const tooBig = await probe(hookUrl, "POST", { "content-type": "application/json" }, big);
    assert.equal(tooBig.status, 413);
    assert.match(await raw(hookUrl, "GARBAGE\r\n\r\n"), /^HTTP\/1\.1 400 /);
    assert.match(
      await raw(hookUrl, "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org\r\n\r\n"),
      /^HTTP\/1\.1 405 /,
    );
    const from = stream.items.length;
    ana.say("general", "still relaying");
    await apiMessage((m) => m.text === "still relaying", from);
    assert.equal(bridge.process.child.exitCode, null);
  });
});
