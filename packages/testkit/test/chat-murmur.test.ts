// murmurd launcher and Mumble test users against the real server (one server for the file).
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { connectMumbleUser, isPortOpen, type MurmurServer, startMurmur, suiteTeardown } from "../src/index.ts";

const teardown = suiteTeardown();
let server: MurmurServer;
before(async () => {
  server = await startMurmur(teardown, { messageLength: 300 });
});

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("startMurmur", () => {
  it("has SuperUser create a channel where two users talk; the server sends its text limit", async (t) => {
    const admin = await connectMumbleUser(t, {
      host: server.host,
      port: server.port,
      username: "SuperUser",
      password: server.superUserPassword,
    });
    const channel = await admin.ensureChannel("talk");
    assert.equal(await admin.ensureChannel("talk"), channel);
    const alice = await connectMumbleUser(t, { host: server.host, port: server.port, username: "alice" });
    const bob = await connectMumbleUser(t, { host: server.host, port: server.port, username: "bob" });
    assert.equal(alice.client.serverConfig?.messageLength, 300);
    await alice.moveTo(channel);
    await bob.moveTo(channel);
    await alice.waitForUser(channel, "bob");
    await alice.say(channel, "<b>héllo</b> &amp; 👋");
    const received = await bob.texts.waitFor((text) => text.html.includes("héllo"));
    assert.deepEqual(received, { from: "alice", channelIds: [channel], html: "<b>héllo</b> &amp; 👋" });
    // The server does not send a sender's own message back.
    assert.equal(alice.texts.items.length, 0);
  });

  it("restarts on the same port with its channels; stop ends the process", async () => {
    const pid = server.pid;
    await server.restart();
    assert.notEqual(server.pid, pid);
    const admin = await connectMumbleUser(teardown, {
      host: server.host,
      port: server.port,
      username: "SuperUser",
      password: server.superUserPassword,
    });
    assert.ok(admin.client.channels.byName("talk"), "the channel survived the restart");
    admin.stop();
    const last = server.pid;
    await server.stop();
    assert.equal(processAlive(last), false);
    assert.equal(await isPortOpen(server.port), false);
  });
});
