// Log format of the real bin: JSON lines when stdout is not a terminal; human-readable lines when SWITCHBOARD_TTY=1
// says a person reads them (npm start sets it: it pipes the output to prefix it, so the bin cannot see the terminal).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { startProcess, type Teardown } from "@switchboard/testkit";

const BIN = fileURLToPath(new URL("../bin/switchboard-gateway.cjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gateway-log-format-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const config = join(dir, "gateway.toml");
writeFileSync(
  config,
  '[server]\nport = 0\n[[backends]]\nname = "nowhere"\nurl = "http://127.0.0.1:9"\ntype = "ollama"\n',
);

async function listeningLine(env: NodeJS.ProcessEnv, t: Teardown): Promise<string> {
  const { SWITCHBOARD_TTY: _, NEXUS_LOG_FORMAT: __, ...inherited } = process.env;
  const gateway = await startProcess(
    {
      command: process.execPath,
      args: [BIN, "serve", "-c", config],
      env: { ...inherited, ...env },
      ready: { line: "listening on" },
      name: "switchboard-gateway",
      timeoutMs: 20_000,
    },
    t,
  );
  return stripVTControlCharacters(await gateway.waitForLine("listening on"));
}

describe("gateway log format", () => {
  it("JSON lines when stdout is not a terminal", async (t) => {
    const line = await listeningLine({}, t);
    assert.match((JSON.parse(line) as { msg: string }).msg, /^switchboard-gateway listening on http/);
  });

  it("human-readable lines with SWITCHBOARD_TTY=1", async (t) => {
    const line = await listeningLine({ SWITCHBOARD_TTY: "1" }, t);
    assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: switchboard-gateway listening on http/);
  });

  it("format = json in the config wins over SWITCHBOARD_TTY=1", async (t) => {
    const line = await listeningLine({ SWITCHBOARD_TTY: "1", NEXUS_LOG_FORMAT: "json" }, t);
    assert.doesNotThrow(() => JSON.parse(line));
  });
});
