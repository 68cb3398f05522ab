// A message far over what an XMPP server takes in one stanza (Prosody closes the stream past 256 KiB, losing the
// session) is clipped to MessageLength before it is sent: it arrives clipped, and the session carries on.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startProsody, suiteTeardown } from "@switchboard/testkit";
import { post, startBridge } from "./helpers.ts";
import { API_ACCOUNT, gateway, human, USERS, xmppAccount } from "./xmpp-fixtures.ts";

describe("xmpp account with a message over the server's stanza limit", () => {
  const teardown = suiteTeardown();

  it("clips a 300 KB message to MessageLength and keeps the session", async (t) => {
    const server = await startProsody(teardown, { users: USERS, mucHistory: 0 });
    const room = `lobby@${server.mucDomain}`;
    const alice = await human(t, server, "alice");
    await alice.joinRoom(room, "Alice");
    const running = await startBridge(xmppAccount(server) + API_ACCOUNT + gateway("lobby", ["lobby"]), t);
    const api = running.url("api.local");

    const huge = `start ${"<tag> & ".repeat(40_000)}end`; // 320 KB, 560 KB once XML-escaped
    assert.equal((await post(api, { text: huge, username: "carol", gateway: "lobby" })).status, 200);
    await post(api, { text: "after the long one", username: "carol", gateway: "lobby" });
    const clipped = await alice.waitForMessage(room, "start");
    assert.ok(clipped.text.startsWith("[api] <carol> start <tag> & "));
    assert.ok(clipped.text.endsWith(" <clipped message>"), clipped.text.slice(-40));
    assert.ok(clipped.text.length < 32_768 && clipped.text.length > 10_000, String(clipped.text.length));
    const next = await alice.waitForMessage(room, "after the long one");
    assert.equal(next.text, "[api] <carol> after the long one");
    assert.ok(!running.logs.some((line) => /stream|policy-violation|reconnect/i.test(line)), running.logs.join("\n"));
  });
});
