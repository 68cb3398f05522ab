// The real bin as a child process: flags, config errors (one line on stderr, exit 1), listening, signals.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runToExit } from "@switchboard/testkit";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { BIN, startBridgeProcess } from "./bridge-process.ts";
import { http, openStream, post, readMessages } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "bridge-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function configFile(text: string): string {
  const path = join(dir, `c${++fileCount}.toml`);
  writeFileSync(path, text);
  return path;
}

function gateway(name: string, ...accounts: string[]): string {
  const entries = accounts.map((a) => `[[gateway.inout]]\naccount = "${a}"\nchannel = "api"\n`).join("");
  return `[[gateway]]\nname = "${name}"\nenable = true\n${entries}`;
}

/** Runs the bin to completion; stdout and stderr separately. */
function runBin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return runToExit({
    command: process.execPath,
    args: [BIN, ...args],
    cwd: options.cwd ?? dir,
    env: { ...process.env, ...options.env },
    // Generous: on a loaded machine tsx alone can take many seconds to start the bin.
    timeoutMs: 60_000,
  });
}

async function expectConfigError(args: string[], pattern: RegExp, options: { cwd?: string } = {}) {
  const { code, stderr, stdout } = await runBin(args, options);
  assert.equal(code, 1, `exit code; stderr: ${stderr}`);
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  assert.equal(lines.length, 1, `exactly one line on stderr, got:\n${stderr}`);
  assert.match(lines[0] ?? "", pattern);
  assert.doesNotMatch(stdout, /listening/);
}

describe("switchboard-bridge command line", { concurrency: 4 }, () => {
  it("-version and --version print the version and exit 0", async () => {
    for (const flag of ["-version", "--version"]) {
      const { code, stdout } = await runBin([flag]);
      assert.equal(code, 0);
      assert.match(stdout, /^switchboard-bridge version \d+\.\d+\.\d+/);
    }
  });

  it("an unknown flag is a usage error (exit 2)", async () => {
    const { code, stderr } = await runBin(["-nope"]);
    assert.equal(code, 2);
    assert.match(stderr, /unknown flag "-nope"/);
  });

  it("a TOML syntax error names the file, line and column", async () => {
    const path = configFile('[general]\nRemoteNickFormat = "{NICK}"\nBroken = = 3\n');
    await expectConfigError(["-conf", path], /config error: .*c\d+\.toml:3:\d+: invalid TOML/);
  });

  it("no enabled gateway", async () => {
    const path = configFile('[api.a]\nBindAddress = "127.0.0.1:1"\n[[gateway]]\nname = "g"\nenable = false\n');
    await expectConfigError(["-conf", path], /no enabled gateway/);
    await expectConfigError(["--conf", configFile('[api.a]\nBindAddress = "127.0.0.1:1"\n')], /no enabled gateway/);
  });

  it("an account used in a gateway but not configured", async () => {
    const path = configFile(`[api.a]\nBindAddress = "127.0.0.1:1"\n${gateway("g", "api.a", "api.zzz")}`);
    await expectConfigError(
      [`--conf=${path}`],
      /account api\.zzz is used in gateway "g" but has no \[api\.zzz\] section/,
    );
  });

  it("a protocol that is not supported yet names the supported ones", async () => {
    const supported = PROTOCOLS.names.join(", ");
    // WhatsApp is a Matterbridge protocol Switchboard leaves out on purpose (docs/bridge.md says why).
    const path = configFile(`[whatsapp.phone]\nNumber = "+1"\n${gateway("g", "whatsapp.phone")}`);
    await expectConfigError(
      ["-conf", path],
      new RegExp(`protocol "whatsapp" is not supported yet; supported protocols: ${supported}$`, "m"),
    );
    const unknown = configFile(`[foo.a]\nX = 1\n${gateway("g", "foo.a")}`);
    await expectConfigError(
      ["-conf", unknown],
      new RegExp(`protocol "foo" is not a known protocol; supported protocols: ${supported}$`, "m"),
    );
  });

  it("an irc account without Nick", async () => {
    const path = configFile(`[irc.libera]\nServer = "irc.libera.chat:6697"\n${gateway("g", "irc.libera")}`);
    await expectConfigError(["-conf", path], /\[irc\.libera\] has no Nick; add e\.g\. Nick = "bridgebot"/);
  });

  it("an api account without BindAddress", async () => {
    const path = configFile(`[api.a]\nBuffer = 10\n${gateway("g", "api.a")}`);
    await expectConfigError(["-conf", path], /\[api\.a\] has no BindAddress/);
  });

  it("a duplicate gateway name", async () => {
    const path = configFile(`[api.a]\nBindAddress = "127.0.0.1:1"\n${gateway("g", "api.a")}${gateway("g", "api.a")}`);
    await expectConfigError(["-conf", path], /duplicate gateway name "g"/);
  });

  it("a value of the wrong type", async () => {
    const path = configFile(`[api.a]\nBindAddress = "127.0.0.1:1"\nBuffer = "ten"\n${gateway("g", "api.a")}`);
    await expectConfigError(["-conf", path], /\[api\.a\]: Buffer must be an integer/);
  });

  it("a secret of the wrong type is not echoed; a Token with outer whitespace is refused", async () => {
    const path = configFile(`[api.a]\nBindAddress = "127.0.0.1:1"\nToken = 987654321\n${gateway("g", "api.a")}`);
    const { stderr } = await runBin(["-conf", path]);
    assert.match(stderr, /\[api\.a\]: Token must be a string \(got an integer \(value hidden\)\)/);
    assert.doesNotMatch(stderr, /987654321/);
    const spaced = configFile(`[api.a]\nBindAddress = "127.0.0.1:1"\nToken = "tok "\n${gateway("g", "api.a")}`);
    await expectConfigError(["-conf", spaced], /\[api\.a\] Token has leading or trailing whitespace/);
  });

  it("a BindAddress already in use", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const address = blocker.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const path = configFile(`[api.a]\nBindAddress = "127.0.0.1:${port}"\n${gateway("g", "api.a")}`);
      // One line naming the account, the address and the key that changes it; no stack trace.
      await expectConfigError(
        ["-conf", path],
        new RegExp(
          `^switchboard-bridge: \\[api\\.a\\] BindAddress 127\\.0\\.0\\.1:${port} is already in use: change BindAddress in \\[api\\.a\\]$`,
        ),
      );
    } finally {
      blocker.close();
    }
  });

  it("reads ./matterbridge.toml by default and says so when it is missing", async () => {
    const empty = mkdtempSync(join(dir, "empty-"));
    await expectConfigError([], /cannot read config .*matterbridge\.toml: no such file/, { cwd: empty });
  });

  it("starts with ./matterbridge.toml, prints where it listens, logs each request, and exits 0 on SIGTERM with a stream open", async (t) => {
    const cwd = mkdtempSync(join(dir, "run-"));
    const bridge = await startBridgeProcess(
      `[api.a]\nBindAddress = "127.0.0.1:0"\n[api.b]\nBindAddress = "127.0.0.1:0"\n${gateway("g", "api.a", "api.b")}`,
      t,
      { dir: cwd, confFlag: false },
    );
    assert.match(bridge.url("api.a"), /^http:\/\/127\.0\.0\.1:\d+$/);
    const stream = await openStream(bridge.url("api.b"));
    await post(bridge.url("api.a"), { text: "hi", username: "u", gateway: "g" });
    assert.equal((await stream.take(2))[1]?.text, "hi");
    // One info line per request (no -debug): method, path, status and duration.
    await bridge.process.waitForLine(/"method":"POST","path":"\/api\/message","status":200,"ms":[\d.]+/, 5_000);
    const exit = await bridge.process.stop(10_000);
    assert.deepEqual(exit, { code: 0, signal: null });
    stream.close();
  });

  it("exits 0 on SIGINT, and environment variables override the file", async (t) => {
    const toml = `[api.a]\nBindAddress = "127.0.0.1:0"\n[api.b]\nBindAddress = "127.0.0.1:1"\n${gateway("g", "api.a", "api.b")}`;
    const bridge = await startBridgeProcess(toml, t, {
      args: ["-debug"],
      env: {
        ...process.env,
        MATTERBRIDGE_API_B_BINDADDRESS: "127.0.0.1:0",
        MATTERBRIDGE_API_B_REMOTENICKFORMAT: "ENV<{NICK}>",
        MATTERBRIDGE_API_A_TOKEN: "envtok",
      },
    });
    const a = bridge.url("api.a");
    assert.equal((await http(`${a}/api/health`)).status, 401);
    const answer = await post(a, { text: "hi", username: "u", gateway: "g" }, { authorization: "Bearer envtok" });
    assert.equal(answer.status, 200);
    const got = await readMessages(bridge.url("api.b"));
    assert.equal(got[0]?.username, "ENV<u>");
    assert.doesNotMatch(bridge.process.output, /envtok/, "the token is never logged");
    bridge.process.killGroup("SIGINT");
    assert.deepEqual(await bridge.process.exited, { code: 0, signal: null });
  });
});
