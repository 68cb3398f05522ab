import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI } from "@switchboard/testkit";
import OpenAI from "openai";
import { type Browser, chromium, type Page } from "playwright-core";
import type { RunningGateway } from "../src/gateway.ts";
import { backendToml, Closers, startTestGateway } from "./helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = resolve(import.meta.dirname, "../../../artifacts");
const missing = !existsSync(CHROMIUM);
// On CI chromium must be there (.ci/run installs it); elsewhere the test says why it did not run.
const skip =
  missing && process.env["CI"] !== "true" ? `${CHROMIUM} is not installed (apt-get install chromium)` : false;

describe("the dashboard in a real browser", { skip }, () => {
  let alpha: FakeLlmServer;
  let beta: FakeLlmServer;
  let gateway: RunningGateway;
  let browser: Browser;
  let page: Page;
  let client: OpenAI;
  const closers = new Closers();

  before(async () => {
    alpha = await startFakeOpenAI({ models: [{ id: "llama3" }] });
    beta = await startFakeOpenAI({ models: [{ id: "llama3" }, { id: "qwen" }] });
    gateway = await startTestGateway(
      "[health_check]\ninterval_seconds = 3600\nfailure_threshold = 1\n" +
        '[routing]\nstrategy = "priority_only"\n' +
        backendToml("alpha", alpha.url, "vllm", "priority = 1") +
        backendToml("beta", beta.url, "llamacpp", "priority = 2"),
      closers,
    );
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    closers.after(() => browser.close());
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(gateway.url);
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([alpha.close(), beta.close()]);
  });

  it("shows the fleet, then requests sent through the API live, then a backend going down", async () => {
    await page.locator("#connection[data-state='live']").waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(".card").count(), 2);
    assert.equal(await page.locator(".card[data-backend='alpha']").getAttribute("data-status"), "healthy");
    assert.match((await page.locator("#matrix").textContent()) ?? "", /qwen/);

    for (const model of ["llama3", "qwen", "llama3"]) {
      await client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });
    }
    await page.waitForFunction("document.querySelectorAll('#log tbody tr').length >= 3", null, { timeout: 10_000 });
    const rows = await page.locator("#log tbody tr").allTextContents();
    assert.ok(
      rows.some((row) => row.includes("qwen") && row.includes("beta")),
      rows.join("\n"),
    );
    assert.ok(
      rows.some((row) => row.includes("llama3") && row.includes("alpha")),
      rows.join("\n"),
    );
    assert.equal(await page.locator("#total-completed").textContent(), "3");
    assert.equal(await page.locator("#total-succeeded").textContent(), "3");

    // Take alpha down: the next probe sees it, and its card turns unhealthy live.
    alpha.setFault({ kind: "refuse" });
    await gateway.health.checkNow();
    await page.locator(".card[data-backend='alpha'][data-status='unhealthy']").waitFor({ timeout: 10_000 });

    mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = join(ARTIFACTS, "dashboard.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`dashboard screenshot: ${screenshot}`);
  });

  it("reconnects by itself when the socket drops, and shows it meanwhile", async () => {
    // The gateway closes every dashboard socket (as when it shuts down); the page says so, then comes back live.
    gateway.dashboard.close();
    await page.locator("#connection[data-state='reconnecting']").waitFor({ timeout: 10_000 });
    await page.locator("#connection[data-state='live']").waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(".card").count(), 2);
  });
});

describe("the dashboard of a gateway with keys, in a real browser", { skip }, () => {
  const MASTER = "dashboard-master-key-0123456789";
  const closers = new Closers();
  let backend: FakeLlmServer;
  let dir: string;
  after(async () => {
    await closers.closeAll();
    await backend?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("asks for the master key, and shows each key's requests and tokens, live and after a reload", async () => {
    backend = await startFakeOpenAI({ models: [{ id: "llama3" }] });
    dir = mkdtempSync(join(tmpdir(), "dashboard-keys-"));
    const gateway = await startTestGateway(
      `${backendToml("local", backend.url)}[auth]\nmaster_key_env = "MASTER"\n[state]\npath = "${join(dir, "s.json")}"\n`,
      closers,
      { MASTER },
    );
    const made = await fetch(`${gateway.url}/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${MASTER}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "team-a" }),
    });
    const { key } = (await made.json()) as { key: string };
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    closers.after(() => browser.close());
    // Without the master key the page is refused (the browser would ask for it: WWW-Authenticate: Basic).
    const refused = await fetch(gateway.url);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate") ?? "", /^Basic /);
    const context = await browser.newContext({ httpCredentials: { username: "admin", password: MASTER } });
    const page = await context.newPage();
    await page.goto(gateway.url);
    await page.locator("#connection[data-state='live']").waitFor({ timeout: 10_000 });
    assert.equal(await page.locator("#keys-section").isHidden(), true, "no key used yet");

    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    for (let i = 0; i < 2; i++)
      await client.chat.completions.create({ model: "llama3", messages: [{ role: "user", content: "hi" }] });
    const row = page.locator("#keys tr[data-key='team-a']");
    await row.waitFor({ timeout: 10_000 });
    await page.waitForFunction(
      "document.querySelector(\"#keys tr[data-key='team-a'] td:nth-child(2)\")?.textContent === '2'",
    );
    assert.match((await page.locator("#log tbody").textContent()) ?? "", /team-a/);
    assert.doesNotMatch((await page.content()) ?? "", new RegExp(key), "the secret is never shown");

    await page.reload();
    await page.locator("#connection[data-state='live']").waitFor({ timeout: 10_000 });
    assert.equal(await page.locator("#keys tr[data-key='team-a'] td:nth-child(2)").textContent(), "2");
  });
});
