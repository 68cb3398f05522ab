// One gateway per state file: the embedded state (keys, usage, stored responses) and the budget's spend are each
// rewritten whole from memory, so a second gateway on either file would overwrite the first's changes. It is refused
// at start, naming the owner; a start refused on the budget's file gives the state file up again.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileInUseError } from "@switchboard/common";
import pino from "pino";
import { type RunningGateway, startGateway } from "../src/gateway.ts";
import { parseConfigText } from "../src/load-config.ts";
import { backendToml } from "./helpers.ts";

describe("state files held by one gateway", () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-lock-"));
  const running: RunningGateway[] = [];
  after(async () => {
    for (const gateway of running) await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (state: string, spend?: string) => {
    const budget = spend === undefined ? "" : `[budget]\nmonthly_limit_usd = 10\nstate_file = "${join(dir, spend)}"\n`;
    const toml =
      `[server]\nport = 0\n[discovery]\nenabled = false\n${backendToml("far", "http://127.0.0.1:9")}` +
      `[state]\npath = "${join(dir, state)}"\n${budget}`;
    const gateway = await startGateway(parseConfigText(toml, "lock.toml", {}), pino({ level: "silent" }));
    running.push(gateway);
    return gateway;
  };
  const inUse = (file: string) => (error: unknown) =>
    error instanceof FileInUseError && error.message.includes(`${join(dir, file)} is in use by process ${process.pid}`);

  it("refuses a second gateway on the state file, and takes the file once the first has stopped", async () => {
    const first = await start("state.json");
    await assert.rejects(start("state.json"), inUse("state.json"));
    await first.close();
    await start("state.json");
  });

  it("refuses a second gateway on the budget's file, and that refused start leaves its own state file free", async () => {
    await start("a.json", "spend.json");
    await assert.rejects(start("b.json", "spend.json"), inUse("spend.json"));
    await start("b.json", "other-spend.json");
  });
});
