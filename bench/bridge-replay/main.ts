// bench/bridge-replay: the time to replay a 10,000-message queue after a restart. The bridge (real bin) holds
// BENCH_MESSAGES posts for an ngIRCd that is down, is killed with SIGKILL, then starts again on the same state file
// once ngIRCd is back: how long reading the queue back takes (from the log), how long until the bridge is ready,
// and until an IRC client in the channel has received the last message. The same start with an empty state file is
// measured beside it, so the replay's own share shows as a ratio.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectIrcUser, type ManagedProcess, startNgircd, startProcess } from "@switchboard/testkit";
import { Pool } from "undici";
import { REPOSITORY_ROOT, serviceBin } from "../service-bin.ts";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
const IN_FLIGHT = 16;
const BIN = serviceBin(REPOSITORY_ROOT, "bridge");

interface LogLine {
  time: number;
  msg: string;
}

/** The time of the first JSON log line whose msg matches. */
function loggedAt(output: string, pattern: RegExp): number {
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    const parsed = JSON.parse(line) as LogLine;
    if (pattern.test(parsed.msg)) return parsed.time;
  }
  throw new Error(`no log line matches ${pattern}`);
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const teardown = { after: (fn: () => Promise<void> | void) => cleanups.push(fn) };
  const dir = mkdtempSync(join(tmpdir(), "bench-replay-"));
  try {
    const server = await startNgircd(teardown);
    const config = (name: string) => {
      const path = join(dir, `${name}.toml`);
      writeFileSync(
        path,
        `[api.in]\nBindAddress = "127.0.0.1:0"\n` +
          `[irc.out]\nServer = "127.0.0.1:${server.port}"\nNick = "${name}"\nRemoteNickFormat = ""\n` +
          "MessageDelay = 0\nMessageQueue = 100000\nReconnectDelay = 50\nReconnectMaxDelay = 200\n" +
          `[[gateway]]\nname = "g"\nenable = true\n` +
          `[[gateway.inout]]\naccount = "api.in"\nchannel = "api"\n[[gateway.inout]]\naccount = "irc.out"\nchannel = "#replay"\n`,
      );
      return path;
    };
    const start = (path: string): Promise<ManagedProcess> =>
      startProcess(
        { command: process.execPath, args: [BIN, "-conf", path], ready: { line: "bridge started" }, name: "bridge" },
        teardown,
      );

    // The reference: a start with an empty state file.
    const plainStarted = performance.now();
    const plain = await start(config("plain"));
    const plainReadyMs = performance.now() - plainStarted;
    await plain.stop();

    const replayConfig = config("replay");
    const first = await start(replayConfig);
    const url = /listening on (http:\/\/\S+?)"/.exec(first.output)?.[1];
    if (url === undefined) throw new Error(`no api address in the log:\n${first.tail()}`);
    await server.restart(async () => {
      await first.waitForLine(/irc\.out disconnected/, 10_000);
      const pool = new Pool(url, { connections: IN_FLIGHT });
      let next = 1;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next <= MESSAGES) {
            const n = next++;
            const { statusCode, body } = await pool.request({
              path: "/api/message",
              method: "POST",
              headers: { "content-type": "application/json" },
              body: `{"text":"r${n}","username":"bench","gateway":"g"}`,
            });
            await body.text();
            if (statusCode !== 200) throw new Error(`POST answered ${statusCode}`);
          }
        }),
      );
      await pool.close();
      first.killGroup("SIGKILL");
      await first.exited;
    });
    const listener = await connectIrcUser(teardown, { ...server, nick: "listener", channels: ["#replay"] });

    const started = performance.now();
    const second = await start(replayConfig);
    const readyMs = performance.now() - started;
    await listener.waitForMessage("#replay", `r${MESSAGES}`, 120_000);
    const deliveredMs = performance.now() - started;
    const readBackMs = loggedAt(second.output, /queued again/) - loggedAt(second.output, /using/);
    const received = listener.events.items.filter((e) => e.type === "privmsg" && e.target === "#replay").length;
    const f = (n: number, digits = 0) => n.toFixed(digits);
    console.log(
      `replay of ${MESSAGES} queued messages after kill -9: read back and queued in ${f(readBackMs)} ms (log);` +
        ` ready after ${f(readyMs)} ms (empty state file: ${f(plainReadyMs)} ms, ${f(readyMs / plainReadyMs, 2)}x);` +
        ` all delivered to ngIRCd ${f(deliveredMs / 1000, 2)} s after the start` +
        ` (${f(MESSAGES / ((deliveredMs - readyMs) / 1000))} msg/s after ready); ${received} lines received`,
    );
    await second.stop();
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
