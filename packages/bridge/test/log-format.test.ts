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

const BIN = fileURLToPath(new URL("../bin/switchboard-bridge.cjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "bridge-log-format-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const config = join(dir, "matterbridge.toml");
writeFileSync(
  config,
  '[api.a]\nBindAddress = "127.0.0.1:0"\n[[gateway]]\nname = "g"\nenable = true\n' +
    '[[gateway.inout]]\naccount = "api.a"\nchannel = "api"\n',
);

async function startedLine(env: NodeJS.ProcessEnv, t: Teardown): Promise<string> {
  const { SWITCHBOARD_TTY: _, ...inherited } = process.env;
  const bridge = await startProcess(
    {
      command: process.execPath,
      args: [BIN, "-conf", config],
      env: { ...inherited, ...env },
      ready: { line: "bridge started" },
      name: "switchboard-bridge",
      timeoutMs: 20_000,
    },
    t,
  );
  return stripVTControlCharacters(await bridge.waitForLine("bridge started"));
}

describe("bridge log format", () => {
  it("JSON lines when stdout is not a terminal", async (t) => {
    const line = await startedLine({}, t);
    assert.match((JSON.parse(line) as { msg: string }).msg, /^bridge started/);
  });

  it("human-readable lines with SWITCHBOARD_TTY=1", async (t) => {
    const line = await startedLine({ SWITCHBOARD_TTY: "1" }, t);
    assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: bridge started/);
  });
});
