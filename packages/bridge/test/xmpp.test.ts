// The xmpp account against a real Prosody: an XMPP room and an api account on one gateway, with @xmpp/client users
// playing the people in the room.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type ProsodyServer, startProsody, suiteTeardown } from "@switchboard/testkit";
import { openStream, post, startBridge } from "./helpers.ts";
import { API_ACCOUNT, gateway, human, streamed, USERS, xmppAccount } from "./xmpp-fixtures.ts";

const teardown = suiteTeardown();
let server: ProsodyServer;
before(async () => {
  // Rooms replay up to 20 messages to whoever joins: the bridge must not relay them.
  server = await startProsody(teardown, { users: USERS, mucHistory: 20 });
});

describe("xmpp account with Prosody", () => {
  it("relays both ways with RemoteNickFormat and /me, never the history replay nor its own messages", async (t) => {
    const room = `lobby@${server.mucDomain}`;
    const alice = await human(t, server, "alice");
    await alice.joinRoom(room, "Alice");
    await alice.say(room, "said before the bridge joined");
    await alice.waitFor((m) => m.text === "said before the bridge joined");

    const running = await startBridge(xmppAccount(server) + API_ACCOUNT + gateway("lobby", ["lobby"]), t);
    const stream = await openStream(running.url("api.local"));

    await alice.say(room, "hello from xmpp");
    const relayed = await streamed(stream, (m) => m.text === "hello from xmpp", "alice's message on the api");
    assert.equal(relayed.username, "[xmpp] Alice");
    assert.equal(relayed.channel, "lobby");
    assert.equal(relayed.account, "xmpp.chat");
    assert.equal(relayed.protocol, "xmpp");
    assert.equal(relayed.gateway, "lobby");
    assert.equal(relayed.userid, `${room}/Alice`);
    assert.equal(relayed.event, "");

    await alice.say(room, "/me waves");
    const action = await streamed(stream, (m) => m.event === "user_action", "alice's action on the api");
    assert.equal(action.text, "waves");
    assert.equal(action.username, "[xmpp] Alice");

    const posted = await post(running.url("api.local"), {
      text: "hello from api",
      username: "carol",
      gateway: "lobby",
    });
    assert.equal(posted.status, 200);
    const fromApi = await alice.waitForMessage(room, "hello from api");
    assert.equal(fromApi.text, "[api] <carol> hello from api");
    assert.equal(fromApi.nick, "Bridge");

    await post(running.url("api.local"), { text: "dances", username: "carol", gateway: "lobby", event: "user_action" });
    const meFromApi = await alice.waitForMessage(room, "dances");
    assert.equal(meFromApi.text, "/me [api] <carol> dances");

    // The room reflected the bridge's own messages to it, and replayed history on its join: had any been relayed,
    // it would have reached the api before this later message.
    await alice.say(room, "last one");
    await streamed(stream, (m) => m.text === "last one", "the last message");
    const texts = stream.items.map((m) => m.text);
    assert.ok(!texts.includes("said before the bridge joined"), "history replay relayed");
    assert.ok(!texts.some((text) => text.includes("hello from api") || text.includes("dances")), "own echo relayed");
    assert.deepEqual(
      texts.filter((text) => text !== ""),
      ["hello from xmpp", "waves", "last one"],
    );
    stream.close();
  });

  it("relays an XMPP correction as an edit: a XEP-0308 correction of the bridge's own copy in another room", async (t) => {
    const first = `edits-a@${server.mucDomain}`;
    const second = `edits-b@${server.mucDomain}`;
    const alice = await human(t, server, "alice");
    const bob = await human(t, server, "bob");
    await alice.joinRoom(first, "Alice");
    await bob.joinRoom(second, "Bob");
    const running = await startBridge(xmppAccount(server) + API_ACCOUNT + gateway("edits", ["edits-a", "edits-b"]), t);
    const stream = await openStream(running.url("api.local"));

    const originalId = await alice.say(first, "teh original");
    const copy = await bob.waitForMessage(second, "teh original");
    assert.equal(copy.text, "[xmpp] <Alice> teh original");
    assert.ok(copy.id, "the bridge's copy has an id");
    assert.equal(copy.replaceId, undefined);

    await alice.correct(first, originalId, "the original");
    const corrected = await bob.waitFor((m) => m.room === second && m.replaceId !== undefined);
    assert.equal(corrected.text, "[xmpp] <Alice> the original");
    assert.equal(corrected.replaceId, copy.id, "the correction names the bridge's copy");

    // The api has no message ids (as in Matterbridge): the corrected text arrives as a message of its own.
    const onApi = await streamed(stream, (m) => m.text === "the original", "the correction on the api");
    assert.equal(onApi.id, "");
    stream.close();
  });

  it("joins with a suffixed nick when its nick is taken, and relays the person who holds it", async (t) => {
    const room = `taken@${server.mucDomain}`;
    const bob = await human(t, server, "bob");
    await bob.joinRoom(room, "Bridge");
    const running = await startBridge(xmppAccount(server) + API_ACCOUNT + gateway("taken", ["taken"]), t);
    const stream = await openStream(running.url("api.local"));

    await post(running.url("api.local"), { text: "who is here", username: "carol", gateway: "taken" });
    const fromApi = await bob.waitForMessage(room, "who is here");
    assert.equal(fromApi.nick, "Bridge_");

    // Bob holds the configured nick: his messages are not the bridge's own.
    await bob.say(room, "I am the real Bridge");
    const relayed = await streamed(stream, (m) => m.text === "I am the real Bridge", "bob's message on the api");
    assert.equal(relayed.username, "[xmpp] Bridge");
    assert.ok(running.logs.some((line) => line.includes("nick Bridge is taken")));
    stream.close();
  });
});
