// Budgets end to end: spend from real usage (streams included) against [budget], the soft limit putting local
// backends first, the hard limit blocking cloud while local still serves, spend surviving a restart, and a corrupted
// state file stopping start-up with a clear message.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeAnthropic, startFakeOpenAI } from "@switchboard/testkit";
import OpenAI from "openai";
import { ConfigError } from "../../src/config/config-error.ts";
import { Budget } from "../../src/policy/budget.ts";
import { backendToml, Closers, http, postJson, startTestGateway } from "../helpers.ts";

const KEY = "sk-ant-budget";
/** 1000 USD per million tokens: a few requests make visible spend. */
const PRICE = 1000;

function seed(path: string, monthUsd: number): void {
  const now = new Date().toISOString();
  const state = { version: 1, month: now.slice(0, 7), month_usd: monthUsd, day: now.slice(0, 10), day_usd: monthUsd };
  writeFileSync(path, JSON.stringify(state));
}

describe("budgets", () => {
  let local: FakeLlmServer;
  let claude: FakeLlmServer;
  let dir: string;
  const closers = new Closers();

  before(async () => {
    local = await startFakeOpenAI({ models: [{ id: "shared" }, { id: "local-only" }] });
    claude = await startFakeAnthropic({ models: [{ id: "shared" }, { id: "claude-only" }], apiKey: KEY });
    dir = mkdtempSync(join(tmpdir(), "gateway-budget-"));
  });
  after(async () => {
    await closers.closeAll();
    await local.close();
    await claude.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (stateFile: string, action = "block_cloud") =>
    startTestGateway(
      backendToml("local", local.url, "vllm", "priority = 90") +
        backendToml("claude", claude.url, "anthropic", 'api_key_env = "ANTHROPIC_KEY"\npriority = 1') +
        `[budget]\nmonthly_limit_usd = 1\nsoft_limit_percent = 50\nhard_limit_action = "${action}"\nstate_file = "${stateFile}"\n` +
        `[pricing."shared"]\ninput_usd_per_mtok = ${PRICE}\noutput_usd_per_mtok = ${PRICE}\n` +
        `[pricing."claude-only"]\ninput_usd_per_mtok = ${PRICE}\noutput_usd_per_mtok = ${PRICE}\n`,
      closers,
      { ANTHROPIC_KEY: KEY },
    );

  it("below the soft limit the cloud backend is preferred; above it local goes first, with the budget headers", async () => {
    const fresh = join(dir, "fresh.json");
    const normal = await start(fresh);
    const cheap = await postJson(`${normal.url}/v1/chat/completions`, {
      model: "shared",
      messages: [{ role: "user", content: "a" }],
    });
    assert.equal(cheap.headers["x-gateway-backend"], "claude");
    assert.equal(cheap.headers["x-gateway-budget-status"], undefined, "no budget headers while Normal");

    const soft = join(dir, "soft.json");
    seed(soft, 0.6);
    const gateway = await start(soft);
    const reply = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: "shared",
      messages: [{ role: "user", content: "a" }],
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers["x-gateway-backend"], "local");
    assert.equal(reply.headers["x-gateway-budget-status"], "SoftLimit");
    assert.equal(reply.headers["x-gateway-budget-utilization"], "60.00");
    assert.equal(reply.headers["x-gateway-budget-remaining"], "0.40");
    // Cloud stays as failover: with local down, the cloud backend serves.
    local.setFault({ kind: "status", status: 500, scope: "inference" });
    const failover = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: "shared",
      messages: [{ role: "user", content: "a" }],
    });
    assert.equal(failover.headers["x-gateway-backend"], "claude");
    local.setFault({ kind: "none" });
  });

  it("at the hard limit block_cloud refuses cloud backends while local ones still serve", async () => {
    const hard = join(dir, "hard.json");
    seed(hard, 1.5);
    const gateway = await start(hard);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: "local-only", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    assert.equal(data.choices[0]?.message.content, "echo: hi");
    assert.equal(response.headers.get("x-gateway-budget-status"), "HardLimit");
    const shared = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: "shared",
      messages: [{ role: "user", content: "a" }],
    });
    assert.equal(shared.headers["x-gateway-backend"], "local");
    const blocked = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: "claude-only",
      messages: [{ role: "user", content: "a" }],
    });
    assert.equal(blocked.status, 503);
    assert.equal(blocked.json().error.code, "no_available_backend");
    assert.equal(blocked.headers["x-gateway-rejection-reasons"], "budget_exceeded");
    assert.equal(blocked.headers["x-gateway-budget-remaining"], "0.00");
    const stats = (await http(`${gateway.url}/v1/stats`)).json();
    assert.equal(stats.budget.status, "HardLimit");
    assert.equal(stats.budget.hard_limit_action, "BlockCloud");
    assert.equal(stats.budget.current_spending_usd, 1.5);
  });

  it("spend comes from real usage, streams included, and survives a restart", async () => {
    const file = join(dir, "spend.json");
    const gateway = await start(file);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: "claude-only",
      messages: [{ role: "user", content: "count me" }],
    });
    let streamed: OpenAI.CompletionUsage | undefined;
    const stream = await client.chat.completions.create({
      model: "claude-only",
      messages: [{ role: "user", content: "and me too" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
    await client.chat.completions.create({ model: "local-only", messages: [{ role: "user", content: "free" }] });
    const tokens = reply.usage!.total_tokens + streamed!.total_tokens;
    const expected = (tokens * PRICE) / 1_000_000;
    const stats = (await http(`${gateway.url}/v1/stats`)).json();
    assert.ok(
      Math.abs(stats.budget.current_spending_usd - expected) < 1e-9,
      `${stats.budget.current_spending_usd} vs ${expected}`,
    );
    assert.equal(stats.budget.monthly_limit_usd, 1);
    assert.match(stats.budget.next_reset_date, /^\d{4}-\d{2}-01$/);
    await gateway.close();
    const saved = JSON.parse(readFileSync(file, "utf8"));
    assert.ok(Math.abs(saved.month_usd - expected) < 1e-9);
    const again = await start(file);
    const restored = (await http(`${again.url}/v1/stats`)).json();
    assert.ok(Math.abs(restored.budget.current_spending_usd - expected) < 1e-9);
  });

  it("a corrupted state file stops start-up with a clear message", async () => {
    const file = join(dir, "corrupted.json");
    writeFileSync(file, '{"version":1,"month":"2026-');
    await assert.rejects(start(file), (error: Error) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(
        error.message,
        `budget state file ${file} is corrupted (not valid JSON); fix it, or move it away to start this month's spend from 0`,
      );
      return true;
    });
    writeFileSync(file, JSON.stringify({ version: 1, month: "2026-01", month_usd: -3, day: "2026-01-01", day_usd: 0 }));
    await assert.rejects(start(file), /corrupted \("month_usd" must be a finite number >= 0\)/);
  });

  it("resets at the UTC calendar boundary (month and day)", () => {
    let now = new Date("2026-01-31T23:59:00Z");
    const budget = new Budget(
      {
        monthlyLimitUsd: 10,
        dailyLimitUsd: 1,
        softLimitPercent: 75,
        hardLimitAction: "block_all",
        stateFile: join(dir, "clock.json"),
      },
      { now: () => now },
    );
    budget.record(1);
    assert.equal(budget.status().status, "HardLimit", "the daily limit is reached");
    assert.equal(budget.allows("local"), false, "block_all blocks local backends too");
    now = new Date("2026-02-01T00:00:01Z");
    assert.deepEqual(budget.spend(), { monthUsd: 0, dayUsd: 0 });
    assert.equal(budget.status().status, "Normal");
    budget.record(0.8);
    now = new Date("2026-02-02T00:00:01Z");
    assert.deepEqual(budget.spend(), { monthUsd: 0.8, dayUsd: 0 });
    budget.close();
  });
});
