// The budget state file as an attacker and an unlucky operator meet it: links planted where the gateway writes, a
// backend answering absurd usage numbers, a state file holding a number JSON reads as Infinity, and a state file that
// cannot be written while requests keep coming.
import assert from "node:assert/strict";
import { once } from "node:events";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { FileInUseError } from "@switchboard/common";
import { waitUntil } from "@switchboard/testkit";
import fc from "fast-check";
import pino from "pino";
import { ConfigError } from "../../src/config/config-error.ts";
import { type RunningGateway, startGateway } from "../../src/gateway.ts";
import { parseConfigText } from "../../src/load-config.ts";
import { Budget } from "../../src/policy/budget.ts";
import { loadSpendState } from "../../src/policy/spend-store.ts";
import { backendToml, http, postJson, withOwnStateFiles } from "../helpers.ts";

const month = () => new Date().toISOString().slice(0, 7);
const day = () => new Date().toISOString().slice(0, 10);
const settings = (stateFile: string) => ({
  monthlyLimitUsd: 100,
  dailyLimitUsd: undefined,
  softLimitPercent: 75,
  hardLimitAction: "block_cloud" as const,
  stateFile,
});

/** An OpenAI-speaking upstream whose answers report `usageText` (raw JSON, so 1e309 can be sent) as their usage. */
async function startHostileUpstream(usageText: () => string): Promise<Server & { url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.url?.endsWith("/models")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ object: "list", data: [{ id: "gpt-4o", object: "model", owned_by: "x" }] }));
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,` +
          `"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":${usageText()}}`,
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return Object.assign(server, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** Starts a gateway with one cloud backend at `url` and a budget kept in `stateFile`; its log lines are collected. */
async function startWithLog(
  url: string,
  stateFile: string,
): Promise<{ gateway: RunningGateway; lines: () => string[] }> {
  let text = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const toml =
    "[server]\nport = 0\n[discovery]\nenabled = false\n[health_check]\ninterval_seconds = 3600\n" +
    backendToml("cloud", url, "openai", 'api_key_env = "KEY"') +
    `[budget]\nmonthly_limit_usd = 100\nstate_file = "${stateFile}"\n`;
  const gateway = await startGateway(
    parseConfigText(withOwnStateFiles(toml), "state.toml", { KEY: "sk-x" }),
    pino({ level: "info" }, sink),
  );
  return { gateway, lines: () => text.split("\n").filter(Boolean) };
}

describe("the budget state file", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "gateway-state-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("never follows a link planted where it writes, and refuses a state file that is a link or not a file", () => {
    const folder = mkdtempSync(join(dir, "links-"));
    const victim = join(folder, "victim");
    writeFileSync(victim, "precious");
    const stateFile = join(folder, "spend.json");
    // The temporary names a writer could be expected to use: a predictable one must not be followed.
    for (const name of [`spend.json.${process.pid}.tmp`, "spend.json.tmp"]) symlinkSync(victim, join(folder, name));
    const budget = new Budget(settings(stateFile));
    budget.record(1.25);
    budget.close();
    assert.equal(readFileSync(victim, "utf8"), "precious", "the link's target is untouched");
    assert.ok(lstatSync(stateFile).isFile(), "the state file is a regular file, not a link");
    assert.equal(JSON.parse(readFileSync(stateFile, "utf8")).month_usd, 1.25);
    const leftovers = readdirSync(folder).filter((name) => name.endsWith(".tmp") && !name.startsWith("spend.json."));
    assert.deepEqual(leftovers, []);

    // A state file that is a link, even to a valid state, is refused at start and never written through.
    const linked = join(folder, "linked.json");
    writeFileSync(victim, JSON.stringify({ version: 1, month: month(), month_usd: 1, day: day(), day_usd: 1 }));
    symlinkSync(victim, linked);
    assert.throws(
      () => new Budget(settings(linked)),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /linked\.json is a symbolic link/);
        return true;
      },
    );
    const directory = join(folder, "directory.json");
    mkdirSync(directory);
    assert.throws(() => new Budget(settings(directory)), /directory\.json is a directory/);

    // A link put in place of the state file after start: the write is refused, the target untouched.
    const later = join(folder, "later.json");
    const running = new Budget(settings(later));
    symlinkSync(victim, later);
    running.record(2);
    assert.throws(() => running.close(), /later\.json is a symbolic link/);
    assert.equal(JSON.parse(readFileSync(victim, "utf8")).month_usd, 1);
  });

  it("one process per state file: a second budget on it is refused, naming the first; a shared (Redis) one is not", () => {
    const file = join(dir, "owned.json");
    const first = new Budget(settings(file));
    assert.throws(
      () => new Budget(settings(file)),
      (error: Error) =>
        error instanceof FileInUseError &&
        error.message.startsWith(`budget state file ${file} is in use by process ${process.pid} (${file}.lock)`) &&
        error.message.includes("Give each gateway its own [budget] state_file"),
    );
    const shared = new Budget(settings(file), { shared: { add() {}, read: async () => ({ monthUsd: 0, dayUsd: 0 }) } });
    shared.close();
    first.record(1);
    first.close();
    const next = new Budget(settings(file));
    assert.equal(next.spend().monthUsd, 1);
    next.close();
  });

  it("reads only finite spends: a number JSON reads as Infinity is an error naming the field", () => {
    const file = join(dir, "infinite.json");
    for (const field of ["month_usd", "day_usd"]) {
      const fields = { month_usd: "1", day_usd: "1", [field]: "1e309" };
      writeFileSync(
        file,
        `{"version":1,"month":"${month()}","month_usd":${fields.month_usd},"day":"${day()}","day_usd":${fields.day_usd}}`,
      );
      assert.throws(
        () => loadSpendState(file),
        (error: Error) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, new RegExp(`corrupted \\("${field}" must be a finite number >= 0\\)`));
          return true;
        },
      );
    }
    // Whatever number the file holds: a finite spend >= 0 is read as it is, anything else names its field.
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.constantFrom("1e309", "-1e309", "-0", "1e-400", "0")), (value) => {
        const text = typeof value === "number" ? (Number.isNaN(value) ? "NaN" : JSON.stringify(value)) : value;
        writeFileSync(file, `{"version":1,"month":"2026-01","month_usd":${text},"day":"2026-01-01","day_usd":0}`);
        try {
          const state = loadSpendState(file)!;
          assert.ok(Number.isFinite(state.monthUsd) && state.monthUsd >= 0, String(state.monthUsd));
        } catch (error) {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /"month_usd" must be a finite number >= 0|not valid JSON/);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("bounds the usage a backend reports: spend stays finite, the file stays readable, one warning", async () => {
    const answers = [
      '{"prompt_tokens":1.7e308,"completion_tokens":5,"total_tokens":1.7e308}',
      '{"prompt_tokens":1e309}',
    ];
    let next = 0;
    const upstream = await startHostileUpstream(() => answers[next++ % answers.length]!);
    const stateFile = join(dir, "extreme.json");
    const { gateway, lines } = await startWithLog(upstream.url, stateFile);
    try {
      for (let i = 0; i < 4; i++) {
        const reply = await postJson(`${gateway.url}/v1/chat/completions`, {
          model: "gpt-4o",
          messages: [{ role: "user", content: "hi" }],
        });
        assert.equal(reply.status, 200);
      }
      const stats = (await http(`${gateway.url}/v1/stats`)).json();
      assert.ok(Number.isFinite(stats.budget.current_spending_usd), String(stats.budget.current_spending_usd));
      const metrics = (await http(`${gateway.url}/metrics`)).text;
      assert.doesNotMatch(metrics, /^gateway_budget_\w+(\{[^}]*\})? [+-]?Inf/m);
      const warnings = lines().filter((line) => line.includes("implausible usage"));
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.match(warnings[0]!, /backend cloud/);
    } finally {
      await gateway.close();
      upstream.close();
    }
    const saved = JSON.parse(readFileSync(stateFile, "utf8"));
    assert.equal(typeof saved.month_usd, "number");
    assert.ok(Number.isFinite(saved.month_usd));
    // The next start reads it.
    assert.ok(loadSpendState(stateFile));
  });

  it("an unwritable state file is logged once, shown in /health, /v1/stats and /metrics, and retried until it works", async () => {
    const upstream = await startHostileUpstream(() => '{"prompt_tokens":1000,"completion_tokens":1000}');
    const stateFile = join(dir, "unwritable.json");
    const { gateway, lines } = await startWithLog(upstream.url, stateFile);
    try {
      // A directory where the file goes: every write fails until it is removed.
      mkdirSync(stateFile);
      for (let i = 0; i < 30; i++) {
        await postJson(`${gateway.url}/v1/chat/completions`, {
          model: "gpt-4o",
          messages: [{ role: "user", content: "a" }],
        });
      }
      await waitUntil(async () => (await http(`${gateway.url}/health`)).json().state_store === "failing", {
        what: "/health to show the failing state store",
      });
      const stats = (await http(`${gateway.url}/v1/stats`)).json();
      assert.equal(stats.budget.state_store, "failing");
      assert.ok(stats.budget.current_spending_usd > 0, "spend is still counted");
      assert.match((await http(`${gateway.url}/metrics`)).text, /^gateway_state_store_failing 1$/m);
      const failures = lines().filter((line) => line.includes("spend state"));
      assert.equal(failures.length, 1, failures.join("\n"));
      assert.doesNotMatch(failures[0]!, /"stack"/);

      rmSync(stateFile, { recursive: true });
      await waitUntil(async () => (await http(`${gateway.url}/health`)).json().state_store === "ok", {
        what: "the retried write to succeed",
        timeoutMs: 15_000,
      });
      assert.match((await http(`${gateway.url}/metrics`)).text, /^gateway_state_store_failing 0$/m);
      const saved = JSON.parse(readFileSync(stateFile, "utf8"));
      assert.ok(
        Math.abs(saved.month_usd - stats.budget.current_spending_usd) < 1e-6,
        "the spend counted while failing is saved",
      );
      const changes = lines().filter((line) => line.includes("spend state"));
      assert.equal(changes.length, 2, changes.join("\n"));
      assert.match(changes[1]!, /saved to .* again/);
    } finally {
      await gateway.close();
      upstream.close();
    }
  });

  it("retries a failing write with backoff, each write carrying all the spend so far", async () => {
    const stateFile = join(dir, "backoff.json");
    const changes: string[] = [];
    const budget = new Budget(settings(stateFile), {
      store: { firstRetryMs: 5, maxRetryMs: 20, onChange: (condition) => changes.push(condition.state) },
    });
    mkdirSync(stateFile);
    budget.record(1);
    await waitUntil(() => budget.storeCondition.state === "failing", { what: "the first write to fail" });
    budget.record(2);
    rmSync(stateFile, { recursive: true });
    await waitUntil(() => budget.storeCondition.state === "ok", { what: "a retry to succeed" });
    assert.deepEqual(changes, ["failing", "ok"]);
    assert.equal(JSON.parse(readFileSync(stateFile, "utf8")).month_usd, 3);
    budget.close();
  });
});
