// The api account answers a POST only once the state file says the message is committed: with the store's
// committed() held back, the routed posts stay unanswered (checked after a later request on another connection has
// been answered, so an early answer would have had every chance to arrive), and all of them are answered 200 once it
// is let go.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { waitUntil, withTimeout } from "@switchboard/testkit";
import { pino } from "pino";
import { ApiAccount } from "../src/accounts/api/api-account.ts";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { Bridge } from "../src/bridge.ts";
import { configFromText } from "../src/config/load.ts";
import { NO_STATE, type StateStore } from "../src/core/state-store.ts";
import { http, post } from "./helpers.ts";

const CONFIG =
  `[api.a]\nBindAddress = "127.0.0.1:0"\n[api.b]\nBindAddress = "127.0.0.1:0"\nBuffer = 100\n` +
  `[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "api.a"\n[[gateway.inout]]\naccount = "api.b"\n`;

/** A store that counts what routing writes and holds committed() until `release()`. */
function heldStore() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const counts = { routed: 0 };
  const store: StateStore = {
    ...NO_STATE,
    atomically<T>(work: () => T): T {
      counts.routed++;
      return work();
    },
    committed: () => gate,
  };
  return { store, counts, release };
}

describe("a POST is answered after the commit", () => {
  it("holds every answer until the store's commit, then answers all", async (t) => {
    const { store, counts, release } = heldStore();
    const config = configFromText(CONFIG, "test.toml", { protocols: PROTOCOLS, env: {} });
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const bridge = new Bridge(config, { logger: pino(quiet), state: store });
    await bridge.start();
    // Let go first, so that a failing test does not leave the stop waiting on held answers.
    t.after(() => {
      release();
      return bridge.stop();
    });
    const connection = bridge.accounts.get("api.a")?.connection;
    assert.ok(connection instanceof ApiAccount && connection.address);
    const base = `http://127.0.0.1:${connection.address.port}`;

    const answered: number[] = [];
    const posts = Array.from({ length: 5 }, (_, i) =>
      post(base, { text: `held ${i}`, username: "bob", gateway: "g" }).then((answer) => {
        answered.push(i);
        return answer.status;
      }),
    );
    await waitUntil(() => counts.routed === 5, { timeoutMs: 5_000, what: "the five posts routed" });
    // Another request, answered at once, after the posts were routed; then a turn for any data already read.
    assert.equal((await http(`${base}/api/health`)).status, 200);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(answered, [], "answered before the commit");

    release();
    assert.deepEqual(await withTimeout(Promise.all(posts), 5_000, "the answers"), [200, 200, 200, 200, 200]);
  });
});
