// kill -9 at random moments during a burst, 20 times, against one state file: the rule docs/bridge.md states
// ("Durability") must hold in the Telegram chat afterwards (a platform that confirms each post: IRC confirms
// nothing, so a line the kernel drops with a killed process's connection is beyond what any bridge can see). Every message the api answered 200 arrives at least once;
// first arrivals keep the posting order; a message arrives again only when the bridge was killed while sending it, so
// there are at most as many repeats as kills; nothing arrives that was not posted.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startTelegramSimulator, waitUntil, withTimeout } from "@switchboard/testkit";
import { startBridgeProcess } from "./bridge-process.ts";
import { post } from "./helpers.ts";

const KILLS = 20;

/** A small seeded generator, so that a failing run can be told apart by its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

describe("kill -9 at random moments during a burst", () => {
  it(`loses nothing accepted and repeats only what was in flight (${KILLS} kills)`, { timeout: 240_000 }, async (t) => {
    const seed = Date.now() % 1_000_000;
    const random = seeded(seed);
    const dir = mkdtempSync(join(tmpdir(), "crash-points-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const tg = await startTelegramSimulator(t, { log: () => {} });
    const bot = tg.createBot({ username: "crash_bot", firstName: "Crash" });
    const chat = tg.createChat({
      title: "Burst",
      members: [bot, tg.createUser({ first_name: "Alice", username: "alice" })],
    });
    const received = () =>
      tg
        .history(chat)
        .filter((m) => m.from === "crash_bot")
        .map((m) => Number(m.text.slice(1)));
    // Paced, so that a burst builds a queue and kills land in every phase: routing, queued, sending, settling.
    const config =
      `[api.in]\nBindAddress = "127.0.0.1:0"\n` +
      `[telegram.out]\nToken = "${bot.token}"\nApiURL = "${tg.apiRoot}"\nRemoteNickFormat = ""\n` +
      "MessageDelay = 3\nMessageQueue = 100000\nReconnectDelay = 50\nReconnectMaxDelay = 200\n" +
      `[[gateway]]\nname = "g"\nenable = true\n` +
      `[[gateway.inout]]\naccount = "api.in"\nchannel = "api"\n[[gateway.inout]]\naccount = "telegram.out"\nchannel = "${chat}"\n`;

    const accepted: number[] = [];
    let next = 1;
    for (let kill = 0; kill < KILLS; kill++) {
      const bridge = await startBridgeProcess(config, t, { dir });
      const base = bridge.url("api.in");
      let dead = false;
      const burst = (async () => {
        while (!dead) {
          const n = next++;
          try {
            const answer = await post(base, { text: `c${n}`, username: "x", gateway: "g" });
            if (answer.status === 200) accepted.push(n);
          } catch {
            return; // the bridge died with this post unanswered: it may or may not be delivered
          }
        }
      })();
      const after = 5 + Math.floor(random() * 150);
      await new Promise((resolve) => setTimeout(resolve, after));
      bridge.process.killGroup("SIGKILL");
      await withTimeout(bridge.process.exited, 10_000, "the bridge's death");
      dead = true;
      await withTimeout(burst, 10_000, "the burst's end");
    }
    assert.ok(accepted.length > KILLS, `only ${accepted.length} posts were accepted (seed ${seed})`);

    const last = await startBridgeProcess(config, t, { dir });
    const marker = next++;
    assert.equal((await post(last.url("api.in"), { text: `c${marker}`, username: "x", gateway: "g" })).status, 200);
    await waitUntil(() => received().includes(marker), { timeoutMs: 60_000, what: `c${marker} in the chat` });
    const arrived = received();
    const context = `seed ${seed}; ${accepted.length} accepted; received ${arrived.length}`;
    const posted = new Set(Array.from({ length: next - 1 }, (_, i) => i + 1));
    for (const n of arrived) assert.ok(posted.has(n), `c${n} was never posted (${context})`);
    const firsts: number[] = [];
    const seen = new Set<number>();
    for (const n of arrived) {
      if (seen.has(n)) continue;
      seen.add(n);
      firsts.push(n);
    }
    for (const n of accepted) assert.ok(seen.has(n), `accepted c${n} was lost (${context})`);
    assert.deepEqual(
      firsts,
      [...firsts].sort((a, b) => a - b),
      `first arrivals out of order (${context})`,
    );
    const repeats = arrived.length - firsts.length;
    assert.ok(repeats <= KILLS, `${repeats} repeats for ${KILLS} kills (${context})`);
    t.diagnostic(`${context}; ${repeats} repeat(s); ${firsts.length - accepted.length - 1} unanswered but delivered`);
  });
});
