// The real bin against a fake homeserver whose /sync shows timeline entries a homeserver should never send: null, an
// event whose sender is not a string, a message whose content is not an object. Each is skipped (one log line for
// them all), the sync cursor moves on, and the next message is relayed by the same process.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startFakeMatrix } from "@switchboard/testkit";
import { suiteTeardown } from "./helpers.ts";
import { skippedLines, startInboundRun } from "./inbound-fixture.ts";

describe("matrix inbound faults", () => {
  const teardown = suiteTeardown();

  it("skips malformed timeline entries with one log line and relays the next message", async () => {
    const fake = await startFakeMatrix(teardown, { log: () => {} });
    const alice = fake.registerUser("alice", { displayName: "Alice" });
    fake.registerUser("bridgebot", { password: "botpw" });
    const room = fake.createRoom(alice, { alias: "main" });
    const run = await startInboundRun(teardown, {
      account: `[matrix.hs]\nServer = "${fake.url}"\nLogin = "bridgebot"\nPassword = "botpw"`,
      accountId: "matrix.hs",
      channel: "#main:localhost",
    });
    alice.say(room, "before the faults");
    await run.waitForRelayed((m) => m.text === "before the faults", "the first message");

    const message = { type: "m.room.message", event_id: "$x", content: { msgtype: "m.text", body: "bad" } };
    fake.injectEvent(room, null);
    fake.injectEvent(room, { ...message, event_id: "$a", sender: 42 });
    fake.injectEvent(room, { ...message, event_id: "$b", sender: "@mallory:localhost", content: "text" });
    fake.injectEvent(room, { ...message, event_id: "$c", sender: { id: "@m:localhost" }, content: null });
    alice.say(room, "after the faults");

    await run.waitForRelayed((m) => m.text === "after the faults", "the message after the malformed entries");
    run.assertAlive();
    assert.deepEqual(
      run.relayed().map((m) => m.text),
      ["before the faults", "after the faults"],
    );
    const lines = await skippedLines(run);
    assert.equal(lines.length, 1, `one rate-limited line for the burst:\n${lines.join("\n")}`);
    assert.match(lines[0] ?? "", /matrix\.hs/);
    assert.match(lines[0] ?? "", /a Matrix event/);
  });
});
