// A state file that cannot be written (its disk full), through the real bin: the state file sits on a small tmpfs
// mounted for the test (root only; skipped elsewhere), which the test then fills. Posts are answered 503 saying what
// to do, a message from IRC is still relayed, the failure is logged once (not once per message), the bridge keeps
// running, and once the disk has room again posts are accepted and kept: after kill -9, what was acknowledged is
// there and what the bridge could not keep is not.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { connectIrcUser, startNgircd, type Teardown, withTimeout } from "@switchboard/testkit";
import type { BridgeProcess } from "./bridge-process.ts";
import { startBridgeProcess } from "./bridge-process.ts";
import { openStream, post, readMessages, suiteTeardown } from "./helpers.ts";

/** A tmpfs of `size` mounted on a fresh folder, unmounted and removed after the test; undefined when not allowed. */
function smallDisk(teardown: Teardown, size: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "state-full-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  teardown.after(() => {
    spawnSync("umount", [dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes `path` until the disk refuses (ENOSPC): big chunks, then single pages for what is left. */
function fill(path: string): void {
  const fd = openSync(path, "w");
  try {
    for (const chunk of [Buffer.alloc(256 * 1024, 1), Buffer.alloc(4096, 1), Buffer.alloc(1, 1)]) {
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const FAILED = /state file .*state\.db: not written \(SQLITE_FULL/;
const RECOVERED = /state file .*state\.db written again after \d+ failed write/;

function config(ircPort: number, stateFile: string): string {
  return `[general]
StateFile = "${stateFile}"

[irc.net]
Server = "127.0.0.1:${ircPort}"
Nick = "fullbot"
RemoteNickFormat = "<{NICK}> "

[api.in]
BindAddress = "127.0.0.1:0"
Buffer = 100
[api.out]
BindAddress = "127.0.0.1:0"
Buffer = 100

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "irc.net"
  channel = "#full"
  [[gateway.inout]]
  account = "api.in"
  channel = "api"
  [[gateway.inout]]
  account = "api.out"
  channel = "out"
`;
}

async function kill9(bridge: BridgeProcess): Promise<void> {
  bridge.process.killGroup("SIGKILL");
  await withTimeout(bridge.process.exited, 10_000, "the bridge's death");
}

describe("a state file whose disk is full", () => {
  const teardown = suiteTeardown();

  it("answers posts 503, keeps relaying and running, logs once, and keeps messages again once there is room", async (t) => {
    const disk = smallDisk(teardown, "2m");
    if (disk === undefined) return t.skip("needs root to mount a small tmpfs");
    const server = await startNgircd(teardown);
    const alice = await connectIrcUser(teardown, { ...server, nick: "alice", channels: ["#full"] });
    const stateFile = join(disk, "state.db");
    const toml = config(server.port, stateFile);
    const first = await startBridgeProcess(toml, teardown);
    const api = first.url("api.in");
    const out = await openStream(first.url("api.out"));
    teardown.after(() => out.close());

    assert.equal((await post(api, { text: "before", username: "bob", gateway: "g" })).status, 200);
    await alice.waitForMessage("#full", "<bob> before");

    const filler = join(disk, "filler");
    fill(filler);
    // Two posts of one turn (their writes share a commit), each large enough to need new pages on the full disk.
    const big = "x".repeat(40_000);
    const refused = await Promise.all(
      ["during 1", "during 2"].map((text) => post(api, { text: `${text} ${big}`, username: "bob", gateway: "g" })),
    );
    for (const answer of refused) {
      assert.equal(answer.status, 503, answer.body);
      assert.match(
        JSON.parse(answer.body).message,
        /^not kept: the bridge cannot write its state file \(SQLITE_FULL: .*\).*post it again once the bridge's disk has room/,
      );
    }
    // A message from IRC is relayed from memory (the rule in docs/bridge.md), though it cannot be kept either.
    alice.say("#full", `from irc ${big.slice(0, 300)}`);
    await withTimeout(
      (async () => {
        while (!out.items.some((m) => m.text.includes("from irc"))) await new Promise((r) => setTimeout(r, 20));
      })(),
      15_000,
      "the IRC message on the api stream",
    );
    const more = await post(api, { text: `during 3 ${big}`, username: "bob", gateway: "g" });
    assert.equal(more.status, 503, more.body);
    assert.equal(first.process.running, true);

    // Room again: the next post is kept.
    unlinkSync(filler);
    assert.equal((await post(api, { text: "after", username: "bob", gateway: "g" })).status, 200);
    await alice.waitForMessage("#full", "<bob> after");
    // The failures since the first one were counted, not logged: one line, then the recovery.
    await first.process.waitForLine(RECOVERED);
    const failures = await first.process.waitForLines(FAILED);
    assert.equal(failures.length, 1, failures.join("\n"));
    assert.doesNotMatch(first.process.output, /uncaught|"level":60/);

    // After kill -9, the acknowledged posts are in api.out's unread buffer; what could not be kept is not.
    await kill9(first);
    const second = await startBridgeProcess(toml, teardown);
    const unread = (await readMessages(second.url("api.out"))).map((m) => m.text);
    assert.deepEqual(unread, ["before", "after"]);
    await second.process.stop();
  });
});
