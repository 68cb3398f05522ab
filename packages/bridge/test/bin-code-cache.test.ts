// The bin runs the bridge from dist/bundle/run.cjs with V8's code cache (@switchboard/common/code-cache): the first
// start leaves an entry, a start from it relays as the first did and reads its environment at run time, and a corrupt
// entry means a normal start that replaces it. The relay goes through XMPP (a real Prosody): @xmpp/xml is an ES
// module whose default export the CommonJS bundle must take as Node's `import` would (scripts/build.mjs).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { corruptFile, type ProsodyServer, startProsody, type XmppUser } from "@switchboard/testkit";
import { startBridgeProcess } from "./bridge-process.ts";
import { post, suiteTeardown } from "./helpers.ts";
import { API_ACCOUNT, gateway, human, USERS, xmppAccount } from "./xmpp-fixtures.ts";

const BUNDLE = fileURLToPath(new URL("../dist/bundle/run.cjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "bridge-code-cache-"));
const cacheDir = join(dir, "cache");
const entriesDir = join(cacheDir, "switchboard-v8");
const entries = () => (existsSync(entriesDir) ? readdirSync(entriesDir).filter((name) => name.endsWith(".v8")) : []);

describe("switchboard-bridge with V8's code cache", { skip: !existsSync(BUNDLE) && "not built" }, () => {
  const teardown = suiteTeardown();
  let server: ProsodyServer;
  let alice: XmppUser;
  let room: string;
  before(async () => {
    server = await startProsody(teardown, { users: USERS, mucHistory: 0 });
    room = `lobby@${server.mucDomain}`;
    alice = await human(teardown, server, "alice");
    await alice.joinRoom(room, "Alice");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** One start of the bin: a post on its api reaches the XMPP room; then SIGTERM (exit 0; the cache is written). */
  async function relayOnce(text: string, expected: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
    const bridge = await startBridgeProcess(
      `${API_ACCOUNT}${xmppAccount(server)}${gateway("lobby", ["lobby"])}`,
      teardown,
      {
        env: { ...process.env, NODE_COMPILE_CACHE: cacheDir, NODE_DISABLE_COMPILE_CACHE: "", ...env },
      },
    );
    try {
      const answer = await post(bridge.url("api.local"), { text, username: "carol", gateway: "lobby" });
      assert.equal(answer.status, 200);
      await alice.waitForMessage(room, expected);
    } finally {
      const { code } = await bridge.process.stop();
      assert.equal(code, 0);
    }
  }

  it("writes the cache at the first start, and a start from it relays and reads the environment of its own", async () => {
    await relayOnce("first start", "[api] <carol> first start");
    const [entry] = entries();
    assert.ok(entry, "the first start left an entry");
    assert.match(entry, /^bridge-/);
    const written = readFileSync(join(entriesDir, entry));
    // The XMPP nick format from the environment (Matterbridge's overlay): read at run time by the start from the cache.
    await relayOnce("from the cache", "carol via api: from the cache", {
      MATTERBRIDGE_XMPP_CHAT_REMOTENICKFORMAT: "{NICK} via {PROTOCOL}: ",
    });
    assert.deepEqual(entries(), [entry]);
    assert.ok(readFileSync(join(entriesDir, entry)).equals(written), "a start from the cache leaves it as it was");
  });

  it("starts normally on a corrupt entry, and replaces it", async () => {
    const [entry] = entries();
    assert.ok(entry);
    const corrupt = corruptFile(join(entriesDir, entry));
    await relayOnce("after a corrupt entry", "[api] <carol> after a corrupt entry");
    assert.ok(!readFileSync(join(entriesDir, entry)).equals(corrupt), "the entry was written again");
  });
});
