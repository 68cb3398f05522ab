// ngIRCd launcher and IRC test users against the real server (one server for the file).
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { connectIrcUser, isPortOpen, type NgircdServer, startNgircd, suiteTeardown } from "../src/index.ts";

const teardown = suiteTeardown();
let server: NgircdServer;
before(async () => {
  server = await startNgircd(teardown);
});

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("startNgircd", () => {
  it("listens on 127.0.0.1 and two users talk in a channel: messages, actions, notices, joins, parts", async (t) => {
    const alice = await connectIrcUser(t, { host: server.host, port: server.port, nick: "alice", channels: ["#room"] });
    const bob = await connectIrcUser(t, { host: server.host, port: server.port, nick: "bob", channels: ["#room"] });
    await alice.waitFor((e) => e.type === "join" && e.nick === "bob" && e.channel === "#room");

    alice.say("#room", "héllo 👋 <&>");
    assert.equal((await bob.waitForMessage("#room", "héllo")).text, "héllo 👋 <&>");
    bob.action("#room", "waves");
    await alice.waitFor((e) => e.type === "action" && e.nick === "bob" && e.text === "waves");
    bob.notice("#room", "a notice");
    await alice.waitFor((e) => e.type === "notice" && e.text === "a notice");
    bob.setTopic("#room", "new topic");
    await alice.waitFor((e) => e.type === "topic" && e.nick === "bob" && e.topic === "new topic");
    await bob.changeNick("bobby");
    await alice.waitFor((e) => e.type === "nick" && e.nick === "bob" && e.newNick === "bobby");
    await bob.part("#room", "later");
    await alice.waitFor((e) => e.type === "part" && e.nick === "bobby" && e.message === "later");
    await bob.quit("gone");
    assert.equal(bob.connected, false);
  });

  it("lets many users connect from one address and relays a burst in order (no flood limits)", async (t) => {
    const talker = await connectIrcUser(t, {
      host: server.host,
      port: server.port,
      nick: "talker",
      channels: ["#burst"],
    });
    const listeners = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) =>
        connectIrcUser(t, { host: server.host, port: server.port, nick: `listener${n}`, channels: ["#burst"] }),
      ),
    );
    for (let i = 0; i < 50; i++) talker.say("#burst", `line ${i}`);
    for (const listener of listeners) await listener.waitForMessage("#burst", "line 49");
    const texts = listeners[0]!.events.items.flatMap((e) => (e.type === "privmsg" ? [e.text] : []));
    assert.deepEqual(
      texts,
      Array.from({ length: 50 }, (_, i) => `line ${i}`),
    );
  });

  it("restarts on the same port; users see the disconnect and can come back", async (t) => {
    const carol = await connectIrcUser(t, { host: server.host, port: server.port, nick: "carol", channels: ["#back"] });
    const dave = await connectIrcUser(t, { host: server.host, port: server.port, nick: "dave", channels: ["#back"] });
    const { port, pid } = server;
    await server.restart();
    assert.equal(server.port, port);
    assert.notEqual(server.pid, pid);
    assert.equal(processAlive(pid), false);
    await carol.reconnect();
    await dave.reconnect();
    carol.say("#back", "after restart");
    await dave.waitForMessage("#back", "after restart");
  });

  it("stop() leaves no process and frees the port", async (t) => {
    const own = await startNgircd(t);
    const { pid, port } = own;
    assert.equal(processAlive(pid), true);
    await own.stop();
    assert.equal(processAlive(pid), false);
    assert.equal(await isPortOpen(port), false);
    await own.stop(); // twice is fine (teardown calls it again)
  });
});
