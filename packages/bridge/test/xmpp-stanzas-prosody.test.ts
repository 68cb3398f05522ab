// The XMPP stanza helpers against what a real Prosody sends: history replay, reflections, corrections, nick conflicts.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { before, describe, it } from "node:test";
import {
  connectXmppUser,
  Inbox,
  type ProsodyServer,
  startProsody,
  suiteTeardown,
  withTimeout,
} from "@switchboard/testkit";
import { client, xml } from "@xmpp/client";
import type { Element } from "@xmpp/xml";
import { isOwnEcho, SentIds } from "../src/accounts/xmpp/echo.ts";
import { HistoryReplay } from "../src/accounts/xmpp/history.ts";
import { type OccupantPresence, parseGroupchat, parseOccupantPresence } from "../src/accounts/xmpp/incoming.ts";
import { groupchatMessage, mucJoinPresence } from "../src/accounts/xmpp/outgoing.ts";

const teardown = suiteTeardown();
let server: ProsodyServer;
before(async () => {
  server = await startProsody(teardown, {
    users: [
      { username: "bridge", password: "bridgepw" },
      { username: "alice", password: "alicepw" },
    ],
  });
});

/** A bare @xmpp/client session playing the bridge, classifying every groupchat message with the helpers. */
async function bridgeSession(t: { after(fn: () => Promise<void>): void }) {
  const xmpp = client({
    service: `xmpp://${server.host}:${server.port}`,
    domain: server.domain,
    resource: "bridge",
    credentials: (authenticate) =>
      authenticate({ username: "bridge", password: "bridgepw" }, "PLAIN", xml("user-agent", { id: randomUUID() })),
  });
  xmpp.reconnect.stop();
  xmpp.on("error", () => {});
  const replay = new HistoryReplay();
  const sent = new SentIds();
  const seen = new Inbox<{ text: string; replay: boolean; echo: boolean; subject?: string; originId?: string }>();
  const presences = new Inbox<OccupantPresence>();
  xmpp.on("stanza", (stanza: Element) => {
    const message = parseGroupchat(stanza);
    if (message) {
      seen.push({
        text: message.text,
        subject: message.subject,
        originId: message.originId,
        replay: replay.isReplay(message),
        echo: isOwnEcho(message, "Bridge", sent),
      });
    }
    const presence = parseOccupantPresence(stanza);
    if (presence) presences.push(presence);
  });
  await withTimeout(xmpp.start(), 10_000, "bridge session login");
  t.after(() => xmpp.stop().then(() => {}));
  return { xmpp, replay, sent, seen, presences };
}

describe("XMPP stanza helpers with Prosody", () => {
  it("classify the history replay, live messages and our own reflection", async (t) => {
    const alice = await connectXmppUser(t, {
      host: server.host,
      port: server.port,
      domain: server.domain,
      username: "alice",
      password: "alicepw",
    });
    const room = `lobby@${server.mucDomain}`;
    await alice.joinRoom(room, "Alice");
    await alice.say(room, "said before the bridge came");
    await alice.waitFor((m) => m.text === "said before the bridge came");

    const bridge = await bridgeSession(t);
    bridge.replay.joining(room);
    // Ask for history on purpose, to see it classified (the bridge itself asks for none).
    await bridge.xmpp.send(mucJoinPresence({ room, nick: "Bridge", maxStanzas: 10 }));
    await bridge.presences.waitFor((p) => p.room === room && p.self && p.kind === "available");
    const subject = await bridge.seen.waitFor((m) => m.subject !== undefined);
    assert.equal(subject.replay, true);
    const history = await bridge.seen.waitFor((m) => m.text === "said before the bridge came");
    assert.equal(history.replay, true);

    await alice.say(room, "live from alice");
    const live = await bridge.seen.waitFor((m) => m.text === "live from alice");
    assert.deepEqual([live.replay, live.echo], [false, false]);

    bridge.sent.add("bridge-1");
    await bridge.xmpp.send(groupchatMessage({ room, text: "from the bridge", id: "bridge-1" }));
    const echo = await bridge.seen.waitFor((m) => m.text === "from the bridge");
    assert.deepEqual([echo.replay, echo.echo, echo.originId], [false, true, "bridge-1"]);
    const atAlice = await alice.waitForMessage(room, "from the bridge");
    assert.equal(atAlice.id, "bridge-1");

    await bridge.xmpp.send(
      groupchatMessage({ room, text: "from the bridge, edited", id: "bridge-2", replaceId: "bridge-1" }),
    );
    const edit = await alice.waitForMessage(room, "edited");
    assert.equal(edit.replaceId, "bridge-1");
  });

  it("report a taken nick as a conflict", async (t) => {
    const alice = await connectXmppUser(t, {
      host: server.host,
      port: server.port,
      domain: server.domain,
      username: "alice",
      password: "alicepw",
    });
    const room = `taken@${server.mucDomain}`;
    await alice.joinRoom(room, "Bridge");
    const bridge = await bridgeSession(t);
    await bridge.xmpp.send(mucJoinPresence({ room, nick: "Bridge" }));
    const refused = await bridge.presences.waitFor((p) => p.room === room && p.kind === "error");
    assert.equal(refused.error, "conflict");
  });
});
