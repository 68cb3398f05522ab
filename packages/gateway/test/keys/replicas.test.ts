// Two gateway replicas (real bins) on one real redis-server act as one: keys, requests and tokens per minute,
// budgets and revocations are shared; both restarted keep keys and spend; Redis restarted mid-traffic costs no 5xx; a
// replica started while Redis is away starts at once and takes keys once it is back; no secret reaches a log line.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type FakeLlmServer,
  type ManagedProcess,
  type RedisServer,
  runToExit,
  startFakeAnthropic,
  startFakeOpenAI,
  startProcess,
  startRedis,
  waitUntil,
} from "@switchboard/testkit";
import { request } from "undici";
import { backendToml, Closers, hello, http, postJson } from "../helpers.ts";

const BIN = fileURLToPath(new URL("../../bin/switchboard-gateway.cjs", import.meta.url));
const MASTER = "replica-master-key-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-replicas";
const admin = { authorization: `Bearer ${MASTER}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function patch(url: string, body: unknown) {
  const response = await request(url, {
    method: "PATCH",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.body.text();
  return response.statusCode;
}

describe("two replicas on one Redis", () => {
  let redis: RedisServer;
  let local: FakeLlmServer;
  let claude: FakeLlmServer;
  let dir: string;
  let file: string;
  let a: ManagedProcess;
  let b: ManagedProcess;
  const secrets: string[] = [MASTER];
  const logs: string[] = [];
  const closers = new Closers();

  const serve = async (name: string) => {
    const gateway = await startProcess(
      {
        command: process.execPath,
        args: [BIN, "serve", "-c", file],
        env: { ...process.env, MASTER, ANTHROPIC_KEY, NEXUS_LOG_FORMAT: "json" },
        ready: { line: "listening on" },
        name,
        timeoutMs: 20_000,
      },
      closers,
    );
    return gateway;
  };
  const urlOf = (gateway: ManagedProcess) => gateway.listeningUrl ?? "";
  const chat = (gateway: ManagedProcess, key: string, model = "llama3") =>
    postJson(`${urlOf(gateway)}/v1/chat/completions`, hello(model), bearer(key));
  const createKey = async (gateway: ManagedProcess, body: Record<string, unknown>) => {
    const made = await postJson(`${urlOf(gateway)}/v1/keys`, body, admin);
    assert.equal(made.status, 201, made.text);
    const parsed = made.json() as { id: string; key: string };
    secrets.push(parsed.key);
    return parsed;
  };
  const keyView = async (gateway: ManagedProcess, id: string) =>
    (await http(`${urlOf(gateway)}/v1/keys/${id}`, { headers: admin })).json();

  before(async () => {
    redis = await startRedis(closers);
    local = await startFakeOpenAI({ models: [{ id: "llama3" }] });
    claude = await startFakeAnthropic({ models: [{ id: "claude-x" }], apiKey: ANTHROPIC_KEY });
    dir = mkdtempSync(join(tmpdir(), "gateway-replicas-"));
    file = join(dir, "gateway.toml");
    writeFileSync(
      file,
      `[server]\nport = 0\n[discovery]\nenabled = false\n` +
        backendToml("local", local.url) +
        backendToml("claude", claude.url, "anthropic", 'api_key_env = "ANTHROPIC_KEY"') +
        `[pricing."claude-x"]\ninput_usd_per_mtok = 100000\noutput_usd_per_mtok = 100000\n` +
        `[budget]\nmonthly_limit_usd = 1000\nstate_file = "${join(dir, "spend.json")}"\n` +
        `[auth]\nmaster_key_env = "MASTER"\n` +
        `[state]\nbackend = "redis"\nurl = "${redis.url}"\nkey_prefix = "test:"\n`,
    );
    a = await serve("replica-a");
    b = await serve("replica-b");
  });
  after(async () => {
    await closers.closeAll();
    await local.close();
    await claude.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a key made on one replica works on the other", async () => {
    const made = await createKey(a, { name: "shared" });
    assert.equal((await chat(b, made.key)).status, 200);
    assert.equal((await chat(a, made.key)).status, 200);
  });

  it("a stored response made on one replica is read and continued on the other", async () => {
    const made = await createKey(a, { name: "responses" });
    const first = await postJson(
      `${urlOf(a)}/v1/responses`,
      { model: "llama3", input: "remember the word kiwi", store: true },
      bearer(made.key),
    );
    assert.equal(first.status, 200, first.text);
    const id = first.json().id as string;
    const read = await http(`${urlOf(b)}/v1/responses/${id}`, { headers: bearer(made.key) });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json().id, id);
    const next = await postJson(
      `${urlOf(b)}/v1/responses`,
      { model: "llama3", input: "which word?", previous_response_id: id },
      bearer(made.key),
    );
    assert.equal(next.status, 200, next.text);
    const deleted = await http(`${urlOf(b)}/v1/responses/${id}`, { method: "DELETE", headers: bearer(made.key) });
    assert.equal(deleted.status, 200);
    assert.equal((await http(`${urlOf(a)}/v1/responses/${id}`, { headers: bearer(made.key) })).status, 404);
  });

  it("rpm is shared exactly: 10 per minute, 12 requests across both, 10 pass", async () => {
    const made = await createKey(a, { name: "ten-rpm", rpm: 10 });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await chat(i % 2 === 0 ? a : b, made.key)).status);
    assert.equal(statuses.filter((status) => status === 200).length, 10, statuses.join(","));
    assert.equal(statuses.filter((status) => status === 429).length, 2, statuses.join(","));
  });

  it("tpm counts the usage of answers on either replica", async () => {
    const made = await createKey(a, { name: "few-tokens", tpm: 5 });
    assert.equal((await chat(a, made.key)).status, 200);
    await waitUntil(async () => (await keyView(b, made.id)).tokens > 0, { what: "the tokens counted" });
    const refused = await chat(b, made.key);
    assert.equal(refused.status, 429);
    assert.equal(refused.json().error.type, "tokens");
  });

  it("budgets are shared: a key's and the global one", async () => {
    const made = await createKey(a, { name: "budgeted", budget_usd: 0.5 });
    assert.equal((await chat(a, made.key, "claude-x")).status, 200);
    await waitUntil(async () => (await keyView(b, made.id)).spend_usd >= 0.5, { what: "the spend on b" });
    const refused = await chat(b, made.key, "claude-x");
    assert.equal(refused.status, 429);
    assert.equal(refused.json().error.code, "insufficient_quota");
    await waitUntil(
      async () => (await http(`${urlOf(b)}/v1/stats`, { headers: admin })).json().budget.current_spending_usd >= 0.5,
      { what: "the global spend seen by b", timeoutMs: 5_000 },
    );
  });

  it("revoke and PATCH on one replica are seen by the other within a second", async () => {
    const made = await createKey(a, { name: "short-lived" });
    assert.equal((await chat(b, made.key)).status, 200);
    assert.equal(await patch(`${urlOf(a)}/v1/keys/${made.id}`, { models: ["claude-x"] }), 200);
    await waitUntil(async () => (await chat(b, made.key)).status === 403, { timeoutMs: 1_500, what: "PATCH on b" });
    const revoked = await http(`${urlOf(a)}/v1/keys/${made.id}`, { method: "DELETE", headers: admin });
    assert.equal(revoked.status, 200);
    await waitUntil(async () => (await chat(b, made.key, "claude-x")).status === 401, {
      timeoutMs: 1_500,
      what: "revocation on b",
    });
  });

  it("both replicas restarted keep keys and spend", async () => {
    const made = await createKey(a, { name: "durable", budget_usd: 100 });
    assert.equal((await chat(a, made.key, "claude-x")).status, 200);
    await waitUntil(async () => (await keyView(a, made.id)).requests === 1, { what: "usage counted" });
    const before = await keyView(a, made.id);
    logs.push(a.output, b.output);
    await a.stop();
    await b.stop();
    a = await serve("replica-a");
    b = await serve("replica-b");
    assert.equal((await chat(b, made.key)).status, 200);
    const afterRestart = await keyView(a, made.id);
    assert.equal(afterRestart.spend_usd, before.spend_usd);
    assert.ok(afterRestart.spend_usd > 0);
  });

  it("Redis restarted mid-traffic: no 5xx for keys already seen, the metric says so, limits apply again", async () => {
    const made = await createKey(a, { name: "steady", rpm: 1000 });
    assert.equal((await chat(a, made.key)).status, 200);
    assert.equal((await chat(b, made.key)).status, 200);
    const statuses: number[] = [];
    let traffic = true;
    const load = (async () => {
      for (let i = 0; traffic; i++) statuses.push((await chat(i % 2 === 0 ? a : b, made.key)).status);
    })();
    const metric = async (gateway: ManagedProcess) =>
      (await http(`${urlOf(gateway)}/metrics`, { headers: admin })).text.match(/^gateway_state_store_up (\d)$/m)?.[1];
    await waitUntil(() => statuses.length >= 5, { what: "traffic before the outage" });
    await redis.restart(async () => {
      await waitUntil(async () => (await metric(a)) === "0" && (await metric(b)) === "0", {
        what: "the store seen down",
      });
      const during = statuses.length;
      await waitUntil(() => statuses.length >= during + 5, { what: "traffic during the outage" });
    });
    await waitUntil(async () => (await metric(a)) === "1" && (await metric(b)) === "1", { what: "reconnected" });
    const afterOutage = statuses.length;
    await waitUntil(() => statuses.length >= afterOutage + 5, { what: "traffic after the outage" });
    traffic = false;
    await load;
    assert.deepEqual([...new Set(statuses)], [200], `statuses: ${statuses.join(",")}`);
    // Limits apply again.
    const limited = await createKey(a, { name: "limited-after", rpm: 1 });
    assert.equal((await chat(a, limited.key)).status, 200);
    assert.equal((await chat(b, limited.key)).status, 429);
    await a.waitForLine(/state store is unreachable/, 1_000);
    await a.waitForLine(/state store is reachable again/, 1_000);
  });

  it("a replica whose Redis is away at start-up starts at once, says so, and takes keys once Redis is back", async () => {
    const made = await createKey(a, { name: "late-replica" });
    let c: ManagedProcess | undefined;
    await redis.restart(async () => {
      c = await serve("replica-c");
      await c.waitForLine(/state store is unreachable at start-up/, 1_000);
      const refused = await chat(c, made.key);
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.json().error.code, "state_store_unavailable");
    });
    const late = c as ManagedProcess;
    await waitUntil(async () => (await chat(late, made.key)).status === 200, { what: "replica-c taking the key" });
    await late.waitForLine(/state store is reachable again/, 1_000);
  });

  it("the CLI makes, lists and revokes keys on the running gateway", async () => {
    const cli = (args: string[]) =>
      runToExit({
        command: process.execPath,
        args: [BIN, "keys", ...args, "--url", urlOf(a), "--key-env", "MASTER"],
        env: { ...process.env, MASTER },
      });
    const made = await cli(["create", "--name", "from-cli", "--rpm", "5", "--models", "llama3"]);
    assert.equal(made.code, 0, made.stderr);
    const secret = made.stdout.split("\n")[0]!;
    secrets.push(secret);
    assert.match(secret, /^sk-sb-/);
    assert.equal((await chat(b, secret)).status, 200);
    const list = await cli(["list"]);
    assert.match(list.stdout, /^ID\s+NAME\s+HINT/);
    assert.match(list.stdout, /from-cli\s+sk-sb-\S+…\s+llama3\s+5\s/);
    assert.ok(!list.stdout.includes(secret));
    const id = /(key_\w+)\s+from-cli/.exec(list.stdout)?.[1];
    assert.ok(id, list.stdout);
    const revoked = await cli(["revoke", id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const refused = await runToExit({
      command: process.execPath,
      args: [BIN, "keys", "list", "--url", urlOf(a)],
      env: { ...process.env, SWITCHBOARD_MASTER_KEY: "wrong-key-wrong-key" },
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the gateway refused: Incorrect API key/);
  });

  it("no secret in any log line", () => {
    logs.push(a.output, b.output);
    const all = logs.join("\n");
    assert.ok(all.includes("POST /v1/chat/completions"), "the access log is there");
    for (const secret of secrets) assert.ok(!all.includes(secret), "a secret was logged");
  });
});
