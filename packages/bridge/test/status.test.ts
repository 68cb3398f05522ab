// The status endpoint ([general] StatusAddress) of the real bin: /health as accounts connect, lose their server and
// fail for good; /metrics checked by promtool and counting what was relayed; hostile requests answered with designed
// statuses; a bad or busy StatusAddress is one start-up line.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { METHODS } from "node:http";
import { connect, createServer } from "node:net";
import { describe, it } from "node:test";
import {
  connectIrcUser,
  runToExit,
  startNgircd,
  startTelegramSimulator,
  type Teardown,
  waitUntil,
} from "@switchboard/testkit";
import fc from "fast-check";
import { BIN, startBridgeProcess } from "./bridge-process.ts";
import { http, post, readMessages, suiteTeardown } from "./helpers.ts";

const PROMTOOL = "/usr/bin/promtool";
const STATUS_LINE = /status endpoint listening on (http:\/\/[^\s"]+)/;

interface AccountHealth {
  account: string;
  protocol: string;
  state: string;
  reason?: string;
  failed_attempts: number;
  next_attempt_at?: string;
  queued: number;
}

interface Health {
  status: string;
  accounts: AccountHealth[];
}

async function health(base: string): Promise<{ status: number; body: Health }> {
  const answer = await http(`${base}/health`);
  return { status: answer.status, body: JSON.parse(answer.body) as Health };
}

function stateOf(body: Health, account: string): AccountHealth | undefined {
  return body.accounts.find((a) => a.account === account);
}

async function metrics(base: string): Promise<string> {
  const answer = await http(`${base}/metrics`);
  assert.equal(answer.status, 200);
  assert.match(String(answer.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
  return answer.body;
}

/** The value of one sample, `name{labels}` written as Prometheus does (labels in registration order). */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function promtool(text: string): void {
  const check = spawnSync(PROMTOOL, ["check", "metrics"], { input: text });
  assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
}

async function startWithStatus(toml: string, teardown: Teardown) {
  const bridge = await startBridgeProcess(`[general]\nStatusAddress = "127.0.0.1:0"\n${toml}`, teardown);
  const status = STATUS_LINE.exec(bridge.process.output)?.[1];
  assert.ok(status, `the status endpoint's address is logged:\n${bridge.process.tail()}`);
  return { ...bridge, status };
}

/** What the status endpoint must answer: Node refuses what it cannot parse, the routes the rest. */
function designedStatus(verb: string, target: string, hasBody: boolean): number {
  if (!METHODS.includes(verb)) return 400;
  if (target.length > 16_000) return 431;
  if (verb === "CONNECT") return 405;
  const path = target.split("?")[0];
  if (path !== "/health" && path !== "/metrics") return 404;
  if (verb !== "GET" && verb !== "HEAD") return 405;
  return hasBody ? 413 : 200;
}

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Writes bytes on a fresh connection and parses the one answer (headers only for HEAD). */
function rawRequest(base: string, bytes: string, head: boolean): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise<RawAnswer>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let data = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const match = /^HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(data);
      if (!match) return reject(new Error(`no HTTP answer to ${JSON.stringify(bytes.slice(0, 80))}: ${data}`));
      const headers = match[2] ?? "";
      const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? -1);
      resolve({ status: Number(match[1]), headers, body: length >= 0 ? (match[3] ?? "").slice(0, length) : "" });
    };
    const timer = setTimeout(() => {
      if (!done) reject(new Error(`no complete answer within 10 s to ${JSON.stringify(bytes.slice(0, 80))}: ${data}`));
      done = true;
      socket.destroy();
    }, 10_000);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      data += chunk;
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = /content-length: (\d+)/i.exec(data.slice(0, end))?.[1];
      if (head || (length !== undefined && data.length >= end + 4 + Number(length))) finish();
    });
    socket.on("close", finish);
    socket.on("error", () => {});
  });
}

const noPromtool = !existsSync(PROMTOOL) && process.env["CI"] !== "true";

describe("status endpoint", () => {
  const teardown = suiteTeardown();

  it("shows an IRC account connected, then reconnecting with its next attempt while ngIRCd is down; counts relays", {
    skip: noPromtool,
  }, async () => {
    const server = await startNgircd(teardown);
    const alice = await connectIrcUser(teardown, { ...server, nick: "alice", channels: ["#status"] });
    const bridge = await startWithStatus(
      `
[irc.net]
Server = "127.0.0.1:${server.port}"
Nick = "statusbot"
RemoteNickFormat = "<{NICK}> "
MessageDelay = 10
ReconnectDelay = 300
ReconnectMaxDelay = 1000

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "irc.net"
  channel = "#status"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`,
      teardown,
    );
    const api = bridge.url("api.local");

    const up = await health(bridge.status);
    assert.equal(up.status, 200);
    assert.equal(up.body.status, "ok");
    assert.deepEqual(
      up.body.accounts.map((a) => [a.account, a.protocol, a.state, a.queued]),
      [
        ["irc.net", "irc", "connected", 0],
        ["api.local", "api", "connected", 0],
      ],
    );

    const before = await metrics(bridge.status);
    promtool(before);
    // The process's own gauges, under the standard names a dashboard for any Node service reads.
    assert.ok((sample(before, "process_cpu_seconds_total") ?? 0) > 0);
    assert.ok((sample(before, "process_resident_memory_bytes") ?? 0) > 1e6);
    assert.ok((sample(before, "nodejs_heap_size_used_bytes") ?? 0) > 0);
    assert.notEqual(sample(before, 'nodejs_eventloop_delay_seconds{statistic="p99"}'), undefined);
    assert.match(before, /^nodejs_active_resources\{type="TCPServerWrap"\} [1-9]/m);
    assert.equal(sample(before, 'bridge_file_bytes_total{account="irc.net",gateway="g"}'), 0);
    assert.match(before, /# HELP bridge_file_bytes_total Bytes of files/);
    assert.equal(sample(before, 'bridge_messages_sent_total{account="irc.net",gateway="g"}'), 0);

    assert.equal((await post(api, { text: "to irc", username: "bob", gateway: "g" })).status, 200);
    await alice.waitForMessage("#status", "<bob> to irc");
    alice.say("#status", "to api");
    await waitUntil(async () => (await readMessages(api)).some((m) => m.text === "to api"), { what: "IRC -> api" });

    const after = await waitUntil(
      async () => {
        const text = await metrics(bridge.status);
        return sample(text, 'bridge_messages_sent_total{account="irc.net",gateway="g"}') === 1 ? text : undefined;
      },
      { what: "the IRC send confirmed in /metrics" },
    );
    promtool(after);
    assert.equal(sample(after, 'bridge_messages_received_total{account="api.local",gateway="g"}'), 1);
    assert.equal(sample(after, 'bridge_messages_received_total{account="irc.net",gateway="g"}'), 1);
    assert.equal(sample(after, 'bridge_messages_sent_total{account="api.local",gateway="g"}'), 1);
    assert.equal(sample(after, 'bridge_relay_latency_seconds_count{account="irc.net",gateway="g"}'), 1);
    assert.equal(sample(after, 'bridge_relay_latency_seconds_bucket{le="+Inf",account="irc.net",gateway="g"}'), 1);
    assert.equal(sample(after, 'bridge_account_connected{account="irc.net"}'), 1);

    await server.stop();
    const down = await waitUntil(
      async () => {
        const answer = await health(bridge.status);
        const irc = stateOf(answer.body, "irc.net");
        return irc?.state === "reconnecting" && irc.next_attempt_at !== undefined ? { answer, irc } : undefined;
      },
      { timeoutMs: 15_000, what: "irc.net reconnecting with a next attempt time" },
    );
    assert.equal(down.answer.status, 503);
    assert.equal(down.answer.body.status, "degraded");
    assert.ok(Number.isFinite(Date.parse(down.irc.next_attempt_at ?? "")), down.irc.next_attempt_at);
    assert.ok((down.irc.reason ?? "") !== "", "the reason it is down");
    assert.equal(stateOf(down.answer.body, "api.local")?.state, "connected");

    // A message for the IRC channel is held, and the queue depth shows it; attempts are counted.
    assert.equal((await post(api, { text: "held", username: "bob", gateway: "g" })).status, 200);
    const held = await waitUntil(
      async () => {
        const text = await metrics(bridge.status);
        const attempts = sample(text, 'bridge_reconnect_attempts_total{account="irc.net"}') ?? 0;
        return attempts > 0 ? text : undefined;
      },
      { timeoutMs: 15_000, what: "a reconnect attempt counted" },
    );
    promtool(held);
    assert.equal(sample(held, 'bridge_outbound_queue_depth{account="irc.net",channel="#status"}'), 1);
    assert.equal(sample(held, 'bridge_account_connected{account="irc.net"}'), 0);
    assert.equal(stateOf((await health(bridge.status)).body, "irc.net")?.queued, 1);
  });

  it("shows an account whose token was revoked as failed with the reason, and counts its rate-limit waits", async () => {
    const tg = await startTelegramSimulator(teardown, { log: () => {} });
    const bot = tg.createBot({ username: "status_bot" });
    const alice = tg.createUser({ first_name: "Alice", username: "alice" });
    const chat = tg.createChat({ title: "Lobby", members: [bot, alice] });
    const bridge = await startWithStatus(
      `
[telegram.tg]
Token = "${bot.token}"
ApiURL = "${tg.apiRoot}"
ReconnectDelay = 50
ReconnectMaxDelay = 300

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "telegram.tg"
  channel = "${chat}"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`,
      teardown,
    );
    tg.rateLimit(1, { method: "sendMessage", retryAfter: 1 });
    assert.equal((await post(bridge.url("api.local"), { text: "slowly", username: "bob", gateway: "g" })).status, 200);
    await tg.botActions.waitFor((a) => a.method === "sendMessage", { what: "the message after the 429" });
    const counted = await waitUntil(
      async () => {
        const text = await metrics(bridge.status);
        return sample(text, 'bridge_messages_sent_total{account="telegram.tg",gateway="g"}') === 1 ? text : undefined;
      },
      { what: "the Telegram send confirmed in /metrics" },
    );
    assert.equal(sample(counted, 'bridge_rate_limited_total{account="telegram.tg",gateway="g"}'), 1);
    assert.equal(
      sample(counted, 'bridge_messages_dropped_total{account="telegram.tg",gateway="g",reason="send_failed"}'),
      0,
    );

    tg.revokeToken(bot);
    const failed = await waitUntil(
      async () => {
        const answer = await health(bridge.status);
        return stateOf(answer.body, "telegram.tg")?.state === "failed" ? answer : undefined;
      },
      { what: "telegram.tg failed" },
    );
    assert.equal(failed.status, 503);
    const account = stateOf(failed.body, "telegram.tg");
    assert.match(account?.reason ?? "", /token/i);
    assert.equal(account?.next_attempt_at, undefined, "no further attempt");
    assert.equal(stateOf(failed.body, "api.local")?.state, "connected");
    assert.ok(bridge.process.running, "the bridge runs on without the failed account");
  });

  it("answers hostile requests with designed statuses and keeps serving", async () => {
    const bridge = await startWithStatus(
      '[api.a]\nBindAddress = "127.0.0.1:0"\n[[gateway]]\nname = "g"\nenable = true\n  [[gateway.inout]]\n  account = "api.a"\n',
      teardown,
    );
    const base = bridge.status;
    const method = fc.oneof(
      fc.constantFrom("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT"),
      fc.stringMatching(/^[A-Z]{1,10}$/),
    );
    const path = fc.oneof(
      fc.constantFrom("/health", "/metrics", "/metrics?x=1", "/", "*", "/metrics/", "/HEALTH", "/%", "//health"),
      fc.webPath().map((p) => p || "/"),
      // Clear of the 16 KiB header limit on either side: a long unknown path, or one too long to read.
      fc
        .oneof(fc.integer({ min: 1, max: 8_000 }), fc.integer({ min: 20_000, max: 40_000 }))
        .map((n) => `/${"a".repeat(n)}`),
    );
    const body = fc.option(
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 200_000 }).map((n) => "b".repeat(n)),
      ),
    );
    await fc.assert(
      fc.asyncProperty(method, path, body, async (verb, target, content) => {
        const length = content === null ? "" : `Content-Length: ${Buffer.byteLength(content)}\r\n`;
        const request = `${verb} ${target} HTTP/1.1\r\nHost: x\r\n${length}\r\n${content ?? ""}`;
        const answer = await rawRequest(base, request, verb === "HEAD");
        const expected = designedStatus(verb, target, content !== null);
        assert.equal(answer.status, expected, `${verb} ${target.slice(0, 60)} (${content?.length ?? "no"} body)`);
        if (answer.status === 405) assert.match(answer.headers, /^allow: GET, HEAD\r?$/im);
        if (answer.status >= 400 && verb !== "HEAD") {
          assert.deepEqual(Object.keys(JSON.parse(answer.body)), ["message"], answer.body);
        }
      }),
      { numRuns: 150 },
    );
    assert.ok(bridge.process.running);
    assert.equal((await health(base)).status, 200);
  });

  it("refuses a malformed StatusAddress, and a busy one, with one line naming the key", async () => {
    const config = (address: string) =>
      `[general]\nStatusAddress = "${address}"\n[api.a]\nBindAddress = "127.0.0.1:0"\n[[gateway]]\nname = "g"\nenable = true\n  [[gateway.inout]]\n  account = "api.a"\n`;
    const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "status-conf-"));
    teardown.after(() => rmSync(dir, { recursive: true, force: true }));
    const run = async (address: string) => {
      const path = join(dir, "bridge.toml");
      writeFileSync(path, config(address));
      const result = await runToExit({ command: process.execPath, args: [BIN, "-conf", path], timeoutMs: 60_000 });
      const lines = result.stderr.split("\n").filter((line) => line.trim() !== "");
      assert.equal(result.code, 1, result.stderr);
      assert.equal(lines.length, 1, result.stderr);
      return lines[0] ?? "";
    };
    assert.match(await run("localhost"), /StatusAddress must be <host>:<port>/);
    assert.match(await run("127.0.0.1:70000"), /StatusAddress must be <host>:<port>/);

    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    teardown.after(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const address = holder.address();
    assert.ok(address && typeof address === "object");
    assert.match(await run(`127.0.0.1:${address.port}`), /StatusAddress 127\.0\.0\.1:\d+ is already in use/);
  });
});
