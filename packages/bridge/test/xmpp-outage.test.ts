// The xmpp account across a Prosody restart: the core sees the drop, holds what the api posts meanwhile, reconnects,
// rejoins the room (a restart drops Prosody's non-persistent rooms) and delivers the held messages in order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startProsody, waitUntil } from "@switchboard/testkit";
import { openStream, post, startBridge } from "./helpers.ts";
import { API_ACCOUNT, gateway, human, streamed, USERS, xmppAccount } from "./xmpp-fixtures.ts";

describe("xmpp account when Prosody restarts", () => {
  it("reconnects, rejoins, and delivers messages posted during the outage in order", async (t) => {
    const server = await startProsody(t, { users: USERS, mucHistory: 20 });
    const room = `outage@${server.mucDomain}`;
    const alice = await human(t, server, "alice");
    await alice.joinRoom(room, "Alice");
    const running = await startBridge(
      xmppAccount(server, "ReconnectDelay = 200\nReconnectMaxDelay = 1000") +
        API_ACCOUNT +
        gateway("outage", ["outage"]),
      t,
    );
    const api = running.url("api.local");
    const stream = await openStream(api);
    await post(api, { text: "before the restart", username: "carol", gateway: "outage" });
    await alice.waitForMessage(room, "before the restart");

    const restarting = server.restart();
    await waitUntil(() => running.logs.some((line) => line.includes("xmpp.chat disconnected")), {
      what: "the bridge noticing the restart",
    });
    for (const n of [1, 2, 3]) {
      const answer = await post(api, { text: `during the outage ${n}`, username: "carol", gateway: "outage" });
      assert.equal(answer.status, 200);
    }
    await restarting;
    await alice.reconnect();
    await waitUntil(() => running.logs.some((line) => line.includes("xmpp.chat reconnected")), {
      what: "the bridge reconnecting",
    });

    // Alice may be back in the room before or after the bridge: she gets them live or as the room's history.
    const held = (text: string) => text.startsWith("[api] <carol> during the outage");
    await waitUntil(() => alice.messages.items.filter((m) => held(m.text)).length >= 3, {
      what: "the three held messages in the room",
    });
    assert.deepEqual(
      alice.messages.items.filter((m) => held(m.text)).map((m) => m.text),
      [1, 2, 3].map((n) => `[api] <carol> during the outage ${n}`),
    );

    // And the room is bridged again the other way.
    await alice.say(room, "after the restart");
    const back = await streamed(stream, (m) => m.text === "after the restart", "alice's message after the restart");
    assert.equal(back.username, "[xmpp] Alice");
    stream.close();
  });
});
