// The gateway under mixed load: its real bin in front of two testkit simulators — "steady" (Ollama: chat,
// embeddings, lifecycle loads) and "flappy" (OpenAI-compatible, preferred by priority), which goes through phases:
// up, stopped (connections refused), up, answering 500. Clients: chat JSON and streams (some aborted after their
// first chunk), embeddings, virtual keys (two in use, one created and deleted now and then), lifecycle unload/load
// cycles, dashboard WebSocket clients connecting and leaving.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type FakeLlmServer,
  type Fault,
  freePort,
  type ManagedProcess,
  startFakeOllama,
  startFakeOpenAI,
  startProcess,
  type Teardown,
} from "@switchboard/testkit";
import { SNAPSHOT_FLAG } from "./heap-snapshot.ts";
import { LogLevels } from "./log-levels.ts";
import { Outcomes } from "./outcomes.ts";
import { Pauser } from "./pauser.ts";

export interface GatewaySoakOptions {
  bin: string;
  dir: string;
  /** The gateway's working directory, where its heap snapshots are written. */
  cwd: string;
  /** Client loops sending requests one at a time. */
  workers: number;
  /** Pause after each request of a loop. */
  paceMs: number;
  /** Length of each phase of the flapping backend. */
  flapMs: number;
  /** Between two lifecycle unload/load cycles. */
  lifecycleMs: number;
  nodeArgs: string[];
}

const CHAT_MODEL = "soak-chat";
const EMBED_MODEL = "soak-embed";
const LIFECYCLE_MODEL = "soak-extra";
/** After the flapping backend changes phase, a stream it was serving may break: that failure is expected. */
const FLAP_GRACE_MS = 3_000;
const FLAP_PHASES: { name: string; fault: Fault }[] = [
  { name: "up", fault: { kind: "none" } },
  { name: "stopped", fault: { kind: "refuse" } },
  { name: "up", fault: { kind: "none" } },
  { name: "answering 500", fault: { kind: "status", status: 500, scope: "inference" } },
];

export class GatewaySoak {
  readonly outcomes = new Outcomes();
  readonly pauser = new Pauser();
  flapTransitions = 0;
  #lastFlapAt = 0;
  #fault: Fault = { kind: "none" };
  #stopped = false;
  #loops: Promise<void>[] = [];
  #keys: string[] = [];
  #keyNumber = 0;

  private constructor(
    readonly process: ManagedProcess,
    readonly url: string,
    readonly masterKey: string,
    readonly logs: LogLevels,
    readonly steady: FakeLlmServer,
    readonly flappy: FakeLlmServer,
    readonly options: GatewaySoakOptions,
  ) {}

  static async start(options: GatewaySoakOptions, teardown: Teardown): Promise<GatewaySoak> {
    const chunking = { chunks: 10, chunkIntervalMs: 5 };
    const steady = await startFakeOllama({
      ...chunking,
      models: [{ id: CHAT_MODEL }, { id: EMBED_MODEL, capabilities: ["embedding"] }, { id: LIFECYCLE_MODEL }],
    });
    teardown.after(() => steady.close());
    const flappy = await startFakeOpenAI({ ...chunking, models: [{ id: CHAT_MODEL }] });
    teardown.after(() => flappy.close());
    const port = await freePort();
    const config = join(options.dir, "gateway.toml");
    writeFileSync(config, gatewayConfig(port, steady.url, flappy.url, join(options.dir, "gateway-state.json")));
    const masterKey = `soak-master-${randomBytes(12).toString("hex")}`;
    const gateway = await startProcess(
      {
        name: "gateway",
        command: process.execPath,
        args: [SNAPSHOT_FLAG, ...options.nodeArgs, options.bin, "serve", "-c", config],
        cwd: options.cwd,
        env: { ...process.env, SOAK_MASTER_KEY: masterKey, SWITCHBOARD_TTY: "0" },
        ready: { port },
        timeoutMs: 30_000,
      },
      teardown,
    );
    const soak = new GatewaySoak(
      gateway,
      `http://127.0.0.1:${port}`,
      masterKey,
      new LogLevels(gateway),
      steady,
      flappy,
      options,
    );
    await soak.#waitForModels();
    soak.#keys = [await soak.#createKey("soak-a"), await soak.#createKey("soak-b")];
    return soak;
  }

  get metricsHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.masterKey}` };
  }

  /** Starts every load generator; they run until stop(). */
  startLoad(): void {
    for (let worker = 0; worker < this.options.workers; worker++) this.#loops.push(this.#clientLoop(worker));
    this.#loops.push(this.#flapLoop(), this.#lifecycleLoop(), this.#dashboardLoop(), this.#keyChurnLoop());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.pauser.resume();
    await Promise.all(this.#loops);
    this.flappy.setFault({ kind: "none" });
  }

  /** Holds the load still with the flapping backend up, so that quiet moments compare alike (see soak.ts). */
  pause(): void {
    this.pauser.pause();
    this.flappy.setFault({ kind: "none" });
  }

  resume(): void {
    this.flappy.setFault(this.#fault);
    this.pauser.resume();
  }

  /** The simulators record every request; a soak must not grow its own memory without bound. */
  forgetRecordedRequests(): void {
    this.steady.requests.splice(0);
    this.flappy.requests.splice(0);
  }

  /** With a JSON body's content type, except for DELETE (the gateway refuses a JSON request without a body). */
  #headers(key = this.masterKey, json = true): Record<string, string> {
    return json
      ? { authorization: `Bearer ${key}`, "content-type": "application/json" }
      : { authorization: `Bearer ${key}` };
  }

  async #waitForModels(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const answer = await fetch(`${this.url}/v1/models`, { headers: this.#headers() }).catch(() => undefined);
      const body = answer?.ok ? ((await answer.json()) as { data: { id: string }[] }) : { data: [] };
      const ids = new Set(body.data.map((model) => model.id));
      if (ids.has(CHAT_MODEL) && ids.has(EMBED_MODEL)) return;
      await sleep(200);
    }
    throw new Error(`the gateway never listed ${CHAT_MODEL} and ${EMBED_MODEL}\n${this.process.tail()}`);
  }

  async #createKey(name: string): Promise<string> {
    const answer = await fetch(`${this.url}/v1/keys`, {
      method: "POST",
      headers: this.#headers(),
      body: JSON.stringify({ name }),
    });
    if (answer.status !== 201) throw new Error(`POST /v1/keys answered ${answer.status}: ${await answer.text()}`);
    return ((await answer.json()) as { key: string }).key;
  }

  #flapRecently(): boolean {
    return Date.now() - this.#lastFlapAt < FLAP_GRACE_MS;
  }

  async #clientLoop(worker: number): Promise<void> {
    for (let n = 0; !this.#stopped; n++) {
      await this.pauser.wait();
      if (this.#stopped) return;
      const key = n % 3 === 2 ? this.masterKey : (this.#keys[(worker + n) % this.#keys.length] ?? this.masterKey);
      const roll = Math.random();
      if (roll < 0.35) await this.#chat(key, n);
      else if (roll < 0.65) await this.#stream(key, n, false);
      else if (roll < 0.8) await this.#stream(key, n, true);
      else await this.#embeddings(key, n);
      await sleep(this.options.paceMs);
    }
  }

  async #chat(key: string, n: number): Promise<void> {
    await this.outcomes.track("chat", async () => {
      const answer = await fetch(`${this.url}/v1/chat/completions`, {
        method: "POST",
        headers: this.#headers(key),
        body: JSON.stringify({ model: CHAT_MODEL, messages: [{ role: "user", content: `soak ${n}` }] }),
      });
      const body = await answer.text();
      if (answer.status !== 200) return { unexpected: `chat ${answer.status} ${body.slice(0, 120)}` };
      if (!body.includes('"choices"')) return { unexpected: `chat 200 without choices: ${body.slice(0, 120)}` };
      return {};
    });
  }

  async #stream(key: string, n: number, abortEarly: boolean): Promise<void> {
    await this.outcomes.track(abortEarly ? "stream-aborted" : "stream", async () => {
      const controller = new AbortController();
      const answer = await fetch(`${this.url}/v1/chat/completions`, {
        method: "POST",
        headers: this.#headers(key),
        body: JSON.stringify({ model: CHAT_MODEL, stream: true, messages: [{ role: "user", content: `soak ${n}` }] }),
        signal: controller.signal,
      });
      if (answer.status !== 200)
        return { unexpected: `stream ${answer.status} ${(await answer.text()).slice(0, 120)}` };
      const reader = answer.body?.getReader();
      if (reader === undefined) return { unexpected: "stream without a body" };
      let text = "";
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
          if (abortEarly && text.includes("data:")) {
            controller.abort();
            return { expected: "client abort mid-stream" };
          }
        }
      } catch (error) {
        if (this.#flapRecently()) return { expected: "stream cut by the flapping backend" };
        return { unexpected: `stream broke: ${(error as Error).message}` };
      }
      if (!text.includes("data: [DONE]")) {
        if (this.#flapRecently()) return { expected: "stream cut by the flapping backend" };
        return { unexpected: `stream ended without [DONE]: ${text.slice(-120)}` };
      }
      return {};
    });
  }

  async #embeddings(key: string, n: number): Promise<void> {
    await this.outcomes.track("embeddings", async () => {
      const answer = await fetch(`${this.url}/v1/embeddings`, {
        method: "POST",
        headers: this.#headers(key),
        body: JSON.stringify({ model: EMBED_MODEL, input: [`soak ${n}`, "second input"] }),
      });
      const body = await answer.text();
      if (answer.status !== 200) return { unexpected: `embeddings ${answer.status} ${body.slice(0, 120)}` };
      if ((JSON.parse(body) as { data: unknown[] }).data.length !== 2) return { unexpected: "embeddings: not 2" };
      return {};
    });
  }

  async #flapLoop(): Promise<void> {
    for (let phase = 1; !this.#stopped; phase++) {
      if (!(await this.#idle(this.options.flapMs))) return;
      const next = FLAP_PHASES[phase % FLAP_PHASES.length] ?? FLAP_PHASES[0];
      if (next === undefined) return;
      this.#lastFlapAt = Date.now();
      this.#fault = next.fault;
      if (!this.pauser.paused) this.flappy.setFault(next.fault);
      this.flapTransitions++;
    }
  }

  /** Unloads, then loads, the lifecycle model on the steady backend; each operation polled until it ends. */
  async #lifecycleLoop(): Promise<void> {
    while (await this.#idle(this.options.lifecycleMs)) {
      for (const step of ["unload", "load"] as const) {
        await this.outcomes.track(`lifecycle-${step}`, async () => {
          const answer =
            step === "unload"
              ? await fetch(`${this.url}/v1/models/${LIFECYCLE_MODEL}?backend=steady`, {
                  method: "DELETE",
                  headers: this.#headers(this.masterKey, false),
                })
              : await fetch(`${this.url}/v1/models/load`, {
                  method: "POST",
                  headers: this.#headers(),
                  body: JSON.stringify({ model: LIFECYCLE_MODEL, backend: "steady" }),
                });
          const body = await answer.text();
          if (answer.status !== 202) return { unexpected: `${step} answered ${answer.status}: ${body.slice(0, 160)}` };
          const id = (JSON.parse(body) as { id: string }).id;
          return this.#operationEnd(id, step);
        });
      }
    }
  }

  async #operationEnd(id: string, step: string): Promise<{ unexpected?: string }> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const answer = await fetch(`${this.url}/v1/models/operations/${id}`, { headers: this.#headers() });
      const operation = (await answer.json()) as { status: string; error: string | null };
      if (operation.status === "completed") return {};
      if (operation.status !== "running" && operation.status !== "pending") {
        return { unexpected: `${step} operation ${operation.status}: ${operation.error}` };
      }
      await sleep(100);
    }
    return { unexpected: `${step} operation ${id} still running after 30 s` };
  }

  /** A dashboard client every 2 s: upgrades, reads its snapshot and events for 1-4 s, leaves. */
  async #dashboardLoop(): Promise<void> {
    while (await this.#idle(2_000)) {
      await this.outcomes.track("dashboard", () => this.#dashboardSession(1_000 + Math.random() * 3_000));
    }
  }

  #dashboardSession(stayMs: number): Promise<{ unexpected?: string }> {
    return new Promise((resolve) => {
      const upgrade = request(`${this.url}/v1/dashboard/socket`, {
        headers: {
          ...this.#headers(),
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": randomBytes(16).toString("base64"),
        },
        agent: false,
      });
      upgrade.on("upgrade", (_response, socket) => {
        let bytes = 0;
        socket.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        socket.on("error", () => {});
        setTimeout(() => {
          // A close frame (opcode 8, masked, empty payload) as a browser leaving would send, then the socket ends.
          socket.end(Buffer.from([0x88, 0x80, 0, 0, 0, 0]));
          resolve(bytes > 0 ? {} : { unexpected: "dashboard socket sent nothing" });
        }, stayMs);
      });
      upgrade.on("response", (response) => {
        response.resume();
        resolve({ unexpected: `dashboard upgrade answered ${response.statusCode}` });
      });
      upgrade.on("error", (error) => resolve({ unexpected: `dashboard: ${error.message}` }));
      upgrade.end();
    });
  }

  /** Now and then a virtual key is created, used once and deleted. */
  async #keyChurnLoop(): Promise<void> {
    while (await this.#idle(20_000)) {
      await this.outcomes.track("key-churn", async () => {
        const key = await this.#createKey(`soak-churn-${this.#keyNumber++}`);
        const answer = await fetch(`${this.url}/v1/keys`, { headers: this.#headers() });
        const list = (await answer.json()) as { data: { id: string; name: string }[] };
        await this.#chat(key, -1);
        const id = list.data.find((entry) => entry.name === `soak-churn-${this.#keyNumber - 1}`)?.id;
        if (id === undefined) return { unexpected: "a created key is not listed" };
        const deleted = await fetch(`${this.url}/v1/keys/${id}`, {
          method: "DELETE",
          headers: this.#headers(this.masterKey, false),
        });
        await deleted.text();
        return deleted.status === 200 ? {} : { unexpected: `DELETE /v1/keys answered ${deleted.status}` };
      });
    }
  }

  /** Waits `ms` (and while paused); false once the soak is stopping. */
  async #idle(ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (!this.#stopped && Date.now() < until) await sleep(Math.min(250, until - Date.now()));
    await this.pauser.wait();
    return !this.#stopped;
  }
}

function gatewayConfig(port: number, steadyUrl: string, flappyUrl: string, statePath: string): string {
  return `[server]
host = "127.0.0.1"
port = ${port}
[health_check]
enabled = true
interval_seconds = 2
timeout_seconds = 1
failure_threshold = 1
recovery_threshold = 1
[routing]
strategy = "priority_only"
max_retries = 2
[logging]
level = "warn"
format = "json"
[auth]
master_key_env = "SOAK_MASTER_KEY"
[state]
backend = "embedded"
path = "${statePath}"
[[backends]]
name = "flappy"
url = "${flappyUrl}"
type = "vllm"
priority = 1
[[backends]]
name = "steady"
url = "${steadyUrl}"
type = "ollama"
priority = 2
`;
}
