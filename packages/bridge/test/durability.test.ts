// The state file through the real bin: what was accepted survives kill -9 (messages queued for a stopped ngIRCd go
// out once and in order after both come back; an unread api message is still there; an edit and a delete made after
// the restart reach the copy made before it on the Discord simulator), a clean restart re-sends nothing, and an
// unusable StateFile is one start-up line.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  connectIrcUser,
  type IrcUser,
  runToExit,
  startDiscordSimulator,
  startNgircd,
  type Teardown,
  withTimeout,
} from "@switchboard/testkit";
import { BIN, type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { post, readMessages } from "./helpers.ts";

function stateDir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), "durability-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function kill9(bridge: BridgeProcess): Promise<void> {
  bridge.process.killGroup("SIGKILL");
  assert.deepEqual(await withTimeout(bridge.process.exited, 10_000, "the bridge's death"), {
    code: null,
    signal: "SIGKILL",
  });
}

async function postAll(base: string, texts: string[]): Promise<void> {
  for (const text of texts) {
    const answer = await post(base, { text, username: "bob", gateway: "g" });
    assert.equal(answer.status, 200, answer.body);
  }
}

const API_PAIR =
  `[api.a]\nBindAddress = "127.0.0.1:0"\n[api.b]\nBindAddress = "127.0.0.1:0"\nBuffer = 100\n` +
  `[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "api.a"\n[[gateway.inout]]\naccount = "api.b"\n`;

const IRC_CONFIG = (port: number, general = "") =>
  `[general]\n${general}\n[api.in]\nBindAddress = "127.0.0.1:0"\n` +
  `[irc.out]\nServer = "127.0.0.1:${port}"\nNick = "keeper"\nRemoteNickFormat = "<{NICK}> "\nMessageDelay = 0\n` +
  "ReconnectDelay = 100\nReconnectMaxDelay = 500\n" +
  `[[gateway]]\nname = "g"\nenable = true\n` +
  `[[gateway.inout]]\naccount = "api.in"\nchannel = "api"\n[[gateway.inout]]\naccount = "irc.out"\nchannel = "#kept"\n`;

function channelLines(user: IrcUser): string[] {
  return user.events.items.flatMap((e) => (e.type === "privmsg" && e.target === "#kept" ? [e.text] : []));
}

describe("the state file through the real bin", { concurrency: 3 }, () => {
  it("keeps an unread api message through kill -9, and forgets it once read", async (t) => {
    const dir = stateDir(t);
    const first = await startBridgeProcess(API_PAIR, t, { dir });
    await postAll(first.url("api.a"), ["unread one", "unread two"]);
    await kill9(first);

    const second = await startBridgeProcess(API_PAIR, t, { dir });
    const read = await readMessages(second.url("api.b"));
    assert.deepEqual(
      read.map((m) => m.text),
      ["unread one", "unread two"],
    );
    assert.deepEqual(await readMessages(second.url("api.b")), []);
    second.process.killGroup("SIGTERM");
    assert.deepEqual(await withTimeout(second.process.exited, 20_000, "exit"), { code: 0, signal: null });

    const third = await startBridgeProcess(API_PAIR, t, { dir });
    assert.deepEqual(await readMessages(third.url("api.b")), [], "what a client read is not served again");
  });

  it("delivers messages queued for a stopped ngIRCd once and in order after kill -9, when both are back", async (t) => {
    const dir = stateDir(t);
    const server = await startNgircd(t);
    const first = await startBridgeProcess(IRC_CONFIG(server.port), t, { dir });
    const texts = Array.from({ length: 20 }, (_, i) => `queued ${i + 1}`);
    await server.restart(async () => {
      await first.process.waitForLine(/irc\.out disconnected/, 10_000);
      await postAll(first.url("api.in"), texts);
      await kill9(first);
    });
    const alice = await connectIrcUser(t, { ...server, nick: "alice", channels: ["#kept"] });

    const second = await startBridgeProcess(IRC_CONFIG(server.port), t, { dir });
    await second.process.waitForLine(/20 queued message\(s\) from the last run are queued again/, 5_000);
    await alice.waitForMessage("#kept", "<bob> queued 20", 20_000);
    // A marker after them: anything sent twice would be there before it.
    await postAll(second.url("api.in"), ["marker"]);
    await alice.waitForMessage("#kept", "<bob> marker", 10_000);
    assert.deepEqual(channelLines(alice), [...texts.map((text) => `<bob> ${text}`), "<bob> marker"]);
  });

  it("re-sends nothing after a clean restart (SIGTERM drains, the next start has nothing queued)", async (t) => {
    const dir = stateDir(t);
    const server = await startNgircd(t);
    const alice = await connectIrcUser(t, { ...server, nick: "alice", channels: ["#kept"] });
    const paced = IRC_CONFIG(server.port).replace("MessageDelay = 0", "MessageDelay = 50");
    const first = await startBridgeProcess(paced, t, { dir });
    const texts = Array.from({ length: 15 }, (_, i) => `once ${i + 1}`);
    await postAll(first.url("api.in"), texts);
    first.process.killGroup("SIGTERM");
    assert.deepEqual(await withTimeout(first.process.exited, 30_000, "exit"), { code: 0, signal: null });
    await alice.waitForMessage("#kept", "<bob> once 15", 10_000);

    const second = await startBridgeProcess(paced, t, { dir });
    assert.doesNotMatch(second.process.output, /queued again/);
    await postAll(second.url("api.in"), ["marker"]);
    await alice.waitForMessage("#kept", "<bob> marker", 10_000);
    assert.deepEqual(channelLines(alice), [...texts.map((text) => `<bob> ${text}`), "<bob> marker"]);
  });

  it("relays an edit and a delete made after kill -9 to the copy made before it (Discord simulator)", async (t) => {
    const dir = stateDir(t);
    const simulator = await startDiscordSimulator(t, { channels: ["general", "random"] });
    const alice = simulator.addUser("alice", { nick: "Alice" });
    const config =
      `[discord.test]\nToken = "${simulator.token}"\nServer = "${simulator.guild.name}"\nApiURL = "${simulator.apiUrl}"\n` +
      `RemoteNickFormat = "<{NICK}> "\n[api.local]\nBindAddress = "127.0.0.1:0"\n` +
      `[[gateway]]\nname = "g"\nenable = true\n` +
      `[[gateway.inout]]\naccount = "discord.test"\nchannel = "general"\n` +
      `[[gateway.inout]]\naccount = "discord.test"\nchannel = "random"\n` +
      `[[gateway.inout]]\naccount = "api.local"\nchannel = "api"\n`;
    const first = await startBridgeProcess(config, t, { dir });
    const original = alice.say("general", "typo here");
    const copy = await simulator.sent.waitFor(
      (a) => a.kind === "create" && a.channel === "random" && a.message.content.endsWith("typo here"),
    );
    // The copy's id is recorded once the bridge has the answer: a later message in the same queue proves it has.
    await postAll(first.url("api.local"), ["sync"]);
    await simulator.sent.waitFor(
      (a) => a.kind === "create" && a.channel === "random" && a.message.content.endsWith("sync"),
    );
    await kill9(first);

    await startBridgeProcess(config, t, { dir });
    alice.edit(original.id, "fixed here");
    const edited = await simulator.sent.waitFor((a) => a.kind === "edit" && a.message.id === copy.message.id);
    assert.equal(edited.message.content, "<Alice> fixed here");
    alice.delete(original.id);
    const deleted = await simulator.sent.waitFor((a) => a.kind === "delete" && a.message.id === copy.message.id);
    assert.equal(deleted.channel, "random");
    const creates = simulator.sent.items.filter((a) => a.kind === "create" && a.message.content.includes("typo here"));
    assert.equal(creates.length, 1, "the original was not sent again");
  });
});

describe("an unusable StateFile", { concurrency: 3 }, () => {
  const run = async (dir: string, general: string, env: NodeJS.ProcessEnv = {}) => {
    const conf = join(dir, "mb.toml");
    writeFileSync(conf, `[general]\n${general}\n${API_PAIR}`);
    return runToExit({
      command: process.execPath,
      args: [BIN, "-conf", conf],
      env: { ...process.env, ...env },
      timeoutMs: 20_000,
    });
  };

  it("is named by MATTERBRIDGE_GENERAL_STATEFILE as well", async (t) => {
    const dir = stateDir(t);
    mkdirSync(join(dir, "state"));
    const result = await run(dir, "", { MATTERBRIDGE_GENERAL_STATEFILE: join(dir, "state") });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^switchboard-bridge: state file .*\/state: is not a regular file[^\n]*\n$/);
  });

  for (const [name, prepare, pattern] of [
    ["a directory", (dir: string) => mkdirSync(join(dir, "state")), /state file .*\/state: is not a regular file/],
    [
      "a symbolic link",
      (dir: string) => symlinkSync(join(dir, "elsewhere"), join(dir, "state")),
      /state file .*\/state: is a symbolic link/,
    ],
    ["in a missing folder", () => {}, /state file .*\/no\/state: its folder does not exist/],
  ] as const) {
    it(`stops start-up with one line naming it: ${name}`, async (t) => {
      const dir = stateDir(t);
      prepare(dir);
      const where = name === "in a missing folder" ? "no/state" : "state";
      const result = await run(dir, `StateFile = "${where}"`);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "");
      const lines = result.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] ?? "", /^switchboard-bridge: /);
      assert.match(lines[0] ?? "", pattern);
      assert.match(lines[0] ?? "", /StateFile/);
    });
  }
});
