// The Twitch chat simulator checked with tmi.js, the client library Twitch bots use: it logs in with an oauth token,
// joins, sees chatters' messages with their tags (display name, id, reply parent), deletions as CLEARMSG, sends
// messages the simulator records, and is refused or rate-limited as on Twitch.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import tmi from "tmi.js";
import { startTwitchIrc, suiteTeardown, type Teardown, withTimeout } from "../src/index.ts";

const teardown = suiteTeardown();

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

async function tmiClient(t: Teardown, wsPort: number, token: string): Promise<tmi.Client> {
  const client = new tmi.Client({
    options: { skipUpdatingEmotesets: true },
    connection: { server: "127.0.0.1", port: wsPort, secure: false, reconnect: false },
    identity: { username: "testbot", password: `oauth:${token}` },
    channels: ["#stream"],
    logger: quiet,
  });
  t.after(async () => {
    await client.disconnect().catch(() => {});
  });
  await withTimeout(client.connect(), 10_000, "tmi.js connecting");
  return client;
}

const next = <T extends unknown[]>(emitter: tmi.Client, event: string): Promise<T> =>
  withTimeout(
    new Promise<T>((resolve) =>
      (emitter as unknown as NodeJS.EventEmitter).once(event, (...args) => resolve(args as T)),
    ),
    10_000,
    `tmi.js event ${event}`,
  );

describe("Twitch IRC simulator with tmi.js", () => {
  it("relays a chatter's message with its tags, a reply's parent and a deletion", async () => {
    const twitch = await startTwitchIrc(teardown);
    const client = await tmiClient(teardown, twitch.wsPort, "good");
    if (!twitch.members("#stream").includes("testbot")) await next(client, "join");
    const said = next<[string, tmi.ChatUserstate, string, boolean]>(client, "message");
    const id = twitch.say("#stream", { login: "alice", displayName: "Alice_B" }, "hello chat");
    const [channel, tags, text, self] = await said;
    assert.equal(channel, "#stream");
    assert.equal(text, "hello chat");
    assert.equal(self, false);
    assert.equal(tags["display-name"], "Alice_B");
    assert.equal(tags.id, id);

    const replied = next<[string, tmi.ChatUserstate, string]>(client, "message");
    twitch.say("#stream", { login: "bob" }, "a reply", { id, login: "alice", text: "hello chat" });
    assert.equal((await replied)[1]["reply-parent-msg-id"], id);

    const deleted = next<[string, string, string, tmi.DeleteUserstate]>(client, "messagedeleted");
    twitch.deleteMessage("#stream", id, "alice");
    const [, , , deleteTags] = await deleted;
    assert.equal(deleteTags["target-msg-id"], id);

    await client.say("#stream", "from the bot");
    const sent = await twitch.sent.waitFor((m) => m.text === "from the bot");
    assert.equal(sent.login, "testbot");
  });

  it("drops messages over the rate limit with NOTICE msg_ratelimit; a moderator's bound is higher", async () => {
    const twitch = await startTwitchIrc(teardown, { limit: 2, moderatorLimit: 4 });
    const client = await tmiClient(teardown, twitch.wsPort, "good");
    if (!twitch.members("#stream").includes("testbot")) await next(client, "join");
    const limited = next<[string, string, string]>(client, "notice");
    for (let i = 0; i < 3; i++) await client.say("#stream", `m${i}`);
    const [, msgId] = await limited;
    assert.equal(msgId, "msg_ratelimit");
    assert.deepEqual(
      twitch.dropped.map((m) => m.text),
      ["m2"],
    );
    twitch.setModerator("#stream", "testbot");
    await client.say("#stream", "as a moderator");
    await twitch.sent.waitFor((m) => m.text === "as a moderator");
  });

  it("refuses a bad token as Twitch does", async () => {
    const twitch = await startTwitchIrc(teardown, { refusedTokens: ["bad"] });
    const client = new tmi.Client({
      connection: { server: "127.0.0.1", port: twitch.wsPort, secure: false, reconnect: false },
      identity: { username: "testbot", password: "oauth:bad" },
      logger: quiet,
    });
    await assert.rejects(withTimeout(client.connect(), 10_000, "tmi.js connecting"), /Login authentication failed/);
  });
});
