// The mumble account against a real murmurd, through the real bin, with @tf2pickup-org/mumble-client users as the
// humans and an api account on the same gateway: text both ways (HTML in, escaped HTML out), actions, long messages
// split at the server's limit, joins and leaves, no echo of the bridge's own messages, a refused password as one
// start-up line, and a reconnect after the server restarts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import {
  connectMumbleUser,
  type MumbleUser,
  type MurmurServer,
  runToExit,
  startMurmur,
  waitUntil,
} from "@switchboard/testkit";
import { htmlToText } from "../src/accounts/mumble/html-text.ts";
import type { Message } from "../src/message.ts";
import { apiGatewayConfig, startWithApiStream } from "./api-gateway.ts";
import { BIN } from "./bridge-process.ts";
import { post, type StreamClient, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 15_000;
/** The server's text limit in these tests, small enough that a paragraph needs several messages. */
const LIMIT = 300;

const config = (port: number, channel: number, password: string) =>
  apiGatewayConfig(
    `
[mumble.voice]
Server = "127.0.0.1:${port}"
Nick = "bridgebot"
Password = "${password}"
SkipTLSVerify = true
UserComment = "Switchboard"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
MessageDelay = 0
ReconnectDelay = 100
ReconnectMaxDelay = 500`,
    { account: "mumble.voice", channels: [String(channel)], api: "ShowJoinPart = true" },
  );

describe("mumble account with murmurd", () => {
  const teardown = suiteTeardown();
  let server: MurmurServer;
  let channel: number;
  let api: string;
  let stream: StreamClient;
  let alice: MumbleUser;

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const fromBridge = (user: MumbleUser, matches: (text: string) => boolean) =>
    user.texts.waitFor((t) => t.from === "bridgebot" && matches(htmlToText(t.html)), { timeoutMs: WAIT_MS });

  before(async () => {
    server = await startMurmur(teardown, { password: "serverpw", messageLength: LIMIT });
    const user = { host: server.host, port: server.port };
    const admin = await connectMumbleUser(teardown, {
      ...user,
      username: "SuperUser",
      password: server.superUserPassword,
    });
    channel = await admin.ensureChannel("bridged");
    admin.stop();
    alice = await connectMumbleUser(teardown, { ...user, username: "alice", password: "serverpw" });
    await alice.moveTo(channel);
    ({ api, stream } = await startWithApiStream(config(server.port, channel, "serverpw"), teardown));
    await alice.waitForUser(channel, "bridgebot", WAIT_MS);
  });

  it("relays a Mumble message to the api as plain text, with the channel id as the channel", async () => {
    await alice.say(channel, "<p>hello <b>from</b> Mumble &amp; co<br/>line two</p>");
    const got = await apiMessage((m) => m.text.startsWith("hello from"));
    assert.equal(got.text, "hello from Mumble & co\nline two");
    assert.equal(got.username, "alice@mumble");
    assert.equal(got.channel, String(channel));
    assert.equal(got.account, "mumble.voice");
    assert.equal(got.protocol, "mumble");
    assert.equal(got.event, "");
  });

  it("sends an api message to Mumble as escaped HTML with RemoteNickFormat; an action in italics", async () => {
    assert.equal((await post(api, { text: "1 < 2 & <b>not bold</b>", username: "bob", gateway: "main" })).status, 200);
    const text = await fromBridge(alice, (t) => t.includes("1 < 2"));
    assert.equal(text.html, "[api] &lt;bob&gt; 1 &lt; 2 &amp; &lt;b&gt;not bold&lt;/b&gt;");
    assert.deepEqual(text.channelIds, [channel]);
    await post(api, { text: "waves", username: "bob", gateway: "main", event: "user_action" });
    const action = await fromBridge(alice, (t) => t.endsWith("waves"));
    assert.equal(action.html, "<i>[api] &lt;bob&gt; waves</i>");
  });

  it("splits a long message into parts within the server's message_length", async () => {
    const long = `start ${"wörd & more ".repeat(60)}end`;
    await post(api, { text: long, username: "bob", gateway: "main" });
    await fromBridge(alice, (t) => t.endsWith("end"));
    const parts = alice.texts.items.map((t) => t.html).filter((html) => html.startsWith("[api] &lt;bob&gt; "));
    const first = parts.findIndex((html) => html.includes("start"));
    const sent = parts.slice(first);
    assert.ok(sent.length >= 3, `expected several parts, got ${sent.length}`);
    for (const html of sent) assert.ok(html.length <= LIMIT, `${html.length} units: ${html}`);
    const rejoined = sent.map((html) => htmlToText(html).slice("[api] <bob> ".length)).join(" ");
    assert.equal(rejoined, long.trimEnd());
  });

  it("relays users joining and leaving the channel as join_leave", async () => {
    const carol = await connectMumbleUser(teardown, {
      host: server.host,
      port: server.port,
      username: "carol",
      password: "serverpw",
    });
    await carol.moveTo(channel);
    const joined = await apiMessage((m) => m.event === "join_leave" && m.text === "carol joins");
    assert.equal(joined.username, "system@mumble");
    carol.stop();
    await apiMessage((m) => m.event === "join_leave" && m.text === "carol leaves");
  });

  it("never relays its own messages back", async () => {
    const from = stream.items.length;
    await post(api, { text: "no echo please", username: "bob", gateway: "main" });
    await fromBridge(alice, (t) => t.endsWith("no echo please"));
    await alice.say(channel, "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("reconnects after the server restarts (a message posted meanwhile waits in the queue) and relays again", async () => {
    await server.restart(async () => {
      await post(api, { text: "said while the server was down", username: "bob", gateway: "main" });
    });
    // The restarted server dropped everyone; the human comes back as a user would.
    alice.stop();
    alice = await connectMumbleUser(teardown, {
      host: server.host,
      port: server.port,
      username: "alice",
      password: "serverpw",
    });
    await alice.moveTo(channel);
    await alice.waitForUser(channel, "bridgebot", WAIT_MS);
    const from = stream.items.length;
    await waitUntil(
      async () => {
        await alice.say(channel, "after the restart");
        return stream.items.slice(from).some((m) => m.text === "after the restart");
      },
      { timeoutMs: WAIT_MS, intervalMs: 500, what: "a message relayed after the restart" },
    );
    await post(api, { text: "and back", username: "bob", gateway: "main" });
    await fromBridge(alice, (t) => t.endsWith("and back"));
  });

  it("a refused password stops start-up with one line naming Password, without the password", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mumble-refused-"));
    teardown.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "bridge.toml");
    writeFileSync(path, config(server.port, channel, "wrong-secret"));
    const run = await runToExit({ command: process.execPath, args: [BIN, "-conf", path], timeoutMs: 60_000 });
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? "", /mumble\.voice.*refused the password \(Password\)/);
    assert.doesNotMatch(run.stdout + run.stderr, /wrong-secret/);
  });
});
