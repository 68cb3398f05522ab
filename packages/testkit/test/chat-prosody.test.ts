// Prosody launcher and XMPP test users against the real server (one server for the file).
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { connectXmppUser, isPortOpen, type ProsodyServer, startProsody, suiteTeardown } from "../src/index.ts";

const teardown = suiteTeardown();
let server: ProsodyServer;
before(async () => {
  server = await startProsody(teardown, { users: [{ username: "alice", password: "alicepw" }] });
});

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const userOn = (username: string, password: string) => ({
  host: server.host,
  port: server.port,
  domain: server.domain,
  username,
  password,
});

describe("startProsody", () => {
  it("has a MUC where two users talk; own messages are reflected; corrections carry the replaced id", async (t) => {
    await server.createUser("bob", "bobpw");
    const alice = await connectXmppUser(t, userOn("alice", "alicepw"));
    const bob = await connectXmppUser(t, userOn("bob", "bobpw"));
    assert.match(alice.jid, /^alice@localhost\//);
    const room = `talk@${server.mucDomain}`;
    await alice.joinRoom(room, "Alice");
    await bob.joinRoom(room, "Bob");

    const id = await alice.say(room, "héllo 👋 <&>");
    const received = await bob.waitForMessage(room, "héllo");
    assert.equal(received.text, "héllo 👋 <&>");
    assert.equal(received.nick, "Alice");
    assert.equal(received.id, id, "Prosody keeps the sender's message id");
    assert.equal(received.delayed, false);
    // The room reflects our own message back to us: what the bridge must not relay again.
    await alice.waitFor((m) => m.room === room && m.nick === "Alice" && m.id === id);

    await alice.correct(room, id, "hello (fixed)");
    const fixed = await bob.waitForMessage(room, "hello (fixed)");
    assert.equal(fixed.replaceId, id);
  });

  it("replays history with delay stamps before the subject, and not when maxstanzas is 0", async (t) => {
    await server.createUser("carol", "carolpw");
    await server.createUser("dave", "davepw");
    const carol = await connectXmppUser(t, userOn("carol", "carolpw"));
    const room = `history@${server.mucDomain}`;
    await carol.joinRoom(room, "Carol");
    await carol.say(room, "said before you came");
    await carol.waitFor((m) => m.room === room && m.text === "said before you came");

    const dave = await connectXmppUser(t, userOn("dave", "davepw"));
    await dave.joinRoom(room, "Dave");
    const replayed = dave.messages.items.filter((m) => m.room === room && m.subject === undefined);
    assert.deepEqual(
      replayed.map((m) => [m.text, m.delayed]),
      [["said before you came", true]],
    );
    const subjectAt = dave.messages.items.findIndex((m) => m.room === room && m.subject !== undefined);
    assert.ok(subjectAt > dave.messages.items.indexOf(replayed[0]!), "the subject comes after the history");

    const erin = await connectXmppUser(t, userOn("dave", "davepw")); // a second session of the same account
    await erin.joinRoom(room, "Erin", { maxStanzas: 0 });
    assert.equal(erin.messages.items.filter((m) => m.room === room && m.subject === undefined).length, 0);
  });

  it("restarts on the same port with its users; clients come back and rejoin", async (t) => {
    await server.createUser("frank", "frankpw");
    const alice = await connectXmppUser(t, userOn("alice", "alicepw"));
    const frank = await connectXmppUser(t, userOn("frank", "frankpw"));
    const room = `outage@${server.mucDomain}`;
    await alice.joinRoom(room, "Alice", { maxStanzas: 0 });
    await frank.joinRoom(room, "Frank", { maxStanzas: 0 });
    const { port, pid } = server;
    await server.restart();
    assert.equal(server.port, port);
    assert.equal(processAlive(pid), false);
    await alice.reconnect();
    await frank.reconnect();
    await alice.say(room, "after restart");
    await frank.waitForMessage(room, "after restart");
  });

  it("stop() leaves no process and frees the port", async (t) => {
    const own = await startProsody(t);
    const { pid, port } = own;
    assert.equal(processAlive(pid), true);
    await own.stop();
    assert.equal(processAlive(pid), false);
    assert.equal(await isPortOpen(port), false);
    await own.stop();
  });
});
