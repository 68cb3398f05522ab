// The group commit through the real bin: posts that arrive together (pipelined in one write) are written to the
// state file in one transaction, counted in its write-ahead log, and every one of them answered 200 is there after a
// kill -9 that follows the answers at once: the restarted bridge delivers them all, in order, to ngIRCd.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { connectIrcUser, startNgircd, withTimeout } from "@switchboard/testkit";
import { startBridgeProcess } from "./bridge-process.ts";

const POSTS = 40;

const CONFIG = (port: number) =>
  `[api.in]\nBindAddress = "127.0.0.1:0"\n` +
  `[irc.out]\nServer = "127.0.0.1:${port}"\nNick = "keeper"\nRemoteNickFormat = "<{NICK}> "\nMessageDelay = 0\nMessageQueue = 1000\n` +
  "ReconnectDelay = 100\nReconnectMaxDelay = 500\n" +
  `[[gateway]]\nname = "g"\nenable = true\n` +
  `[[gateway.inout]]\naccount = "api.in"\nchannel = "api"\n[[gateway.inout]]\naccount = "irc.out"\nchannel = "#kept"\n`;

/**
 * Transactions committed in a SQLite write-ahead log: its frames that end a commit (a database size in their
 * header) and carry the log's current salt (older frames past a restart of the log are not part of it).
 */
function walCommits(path: string): number {
  const wal = readFileSync(path);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt = wal.subarray(16, 24);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (!wal.subarray(at + 8, at + 16).equals(salt)) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

/** Writes every request in one write on one keep-alive connection; resolves with the statuses, in order. */
function pipelinedPosts(url: string, bodies: string[]): Promise<number[]> {
  const { hostname, port } = new URL(url);
  const requests = bodies.map(
    (body) =>
      `POST /api/message HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(requests.join("")));
    const statuses: number[] = [];
    let pending = "";
    socket.setEncoding("utf8");
    socket.on("error", reject);
    socket.on("close", () => reject(new Error(`closed after ${statuses.length} answers`)));
    socket.on("data", (chunk: string) => {
      pending += chunk;
      for (;;) {
        const headEnd = pending.indexOf("\r\n\r\n");
        if (headEnd < 0) return;
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(pending.slice(0, headEnd))?.[1] ?? 0);
        if (pending.length < headEnd + 4 + length) return;
        statuses.push(Number(pending.slice(9, 12)));
        pending = pending.slice(headEnd + 4 + length);
        if (statuses.length === bodies.length) {
          socket.removeAllListeners("close");
          socket.destroy();
          resolve(statuses);
        }
      }
    });
  });
}

describe("the group commit through the real bin", () => {
  it(`writes ${POSTS} posts that arrive together in one transaction, each kept once answered`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "group-commit-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const wal = join(dir, "matterbridge.state.db-wal");
    const server = await startNgircd(t);
    const first = await startBridgeProcess(CONFIG(server.port), t, { dir });
    const texts = Array.from({ length: POSTS }, (_, i) => `together ${i + 1}`);
    // With ngIRCd down every post is held for it, so each one is written to the state file.
    await server.restart(async () => {
      await first.process.waitForLine(/irc\.out disconnected/, 10_000);
      const before = walCommits(wal);
      const bodies = texts.map((text) => JSON.stringify({ text, username: "bob", gateway: "g" }));
      const statuses = await withTimeout(pipelinedPosts(first.url("api.in"), bodies), 10_000, "the answers");
      // Killed as soon as the answers are in: whatever was answered must already be in the file.
      first.process.killGroup("SIGKILL");
      await withTimeout(first.process.exited, 10_000, "the bridge's death");
      assert.deepEqual(statuses, Array(POSTS).fill(200));
      const commits = walCommits(wal) - before;
      assert.equal(commits, 1, `${POSTS} posts that arrived together took ${commits} commits`);
    });
    const alice = await connectIrcUser(t, { ...server, nick: "alice", channels: ["#kept"] });
    const second = await startBridgeProcess(CONFIG(server.port), t, { dir });
    await second.process.waitForLine(new RegExp(`${POSTS} queued message\\(s\\) from the last run`), 5_000);
    await alice.waitForMessage("#kept", `<bob> together ${POSTS}`, 20_000);
    const lines = alice.events.items.flatMap((e) => (e.type === "privmsg" && e.target === "#kept" ? [e.text] : []));
    assert.deepEqual(
      lines,
      texts.map((text) => `<bob> ${text}`),
    );
  });
});
