// The msteams account (the real bin) against the Teams simulator (testkit; itself checked with
// @microsoft/microsoft-graph-client): the device-code sign-in on the first start (the log line gives the URL and the
// code; the simulated person enters it), the session kept in SessionFile (0600) and used by the next start without a
// sign-in, what was said while the bridge was stopped read back from the last seen time; text both ways with
// RemoteNickFormat and HTML converted and escaped, actions, edits and deletes mapped to the bridge's copies, replies
// in threads, a 429 waited out in order, an outage, and refused ClientID, TenantID or a planted SessionFile link as
// one start-up line.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import {
  type GraphUser,
  startTeamsSimulator,
  type TeamsBotAction,
  type TeamsHuman,
  type TeamsSimulator,
  waitUntil,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { apiGatewayConfig, startWithApiStream } from "./api-gateway.ts";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { post, type StreamClient, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

function bridgeConfig(teams: TeamsSimulator, channels: { general: string; random: string }, extra = ""): string {
  const table = `
[msteams.work]
TenantID = "${teams.tenantId}"
ClientID = "${teams.clientId}"
TeamID = "${teams.teamId}"
LoginURL = "${teams.url}"
GraphURL = "${teams.url}"
PollInterval = 100
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
EditSuffix = " (edited)"
ReconnectDelay = 50
ReconnectMaxDelay = 200
${extra}`;
  return apiGatewayConfig(table, { account: "msteams.work", channels: [channels.general, channels.random] });
}

/** The person who reads the bridge's log line and enters the code, signed in as `user`. */
function signInAs(teams: TeamsSimulator, user: GraphUser): string[] {
  const codes: string[] = [];
  teams.identity.onDeviceCode = (code) => {
    codes.push(code);
    teams.identity.approve(code, user.id);
  };
  return codes;
}

const html = (text: string) => `<p>${text}</p>`;

describe("msteams account with the Teams simulator", () => {
  const teardown = suiteTeardown();
  let teams: TeamsSimulator;
  let bridgeUser: GraphUser;
  let ana: TeamsHuman;
  let bob: TeamsHuman;
  let channels: { general: string; random: string };
  let dir: string;
  let bridge: BridgeProcess;
  let api: string;
  let stream: StreamClient;
  let codes: string[];

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const botAction = (matches: (a: TeamsBotAction) => boolean, from = 0) =>
    teams.sent.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "a bot action" });
  const posted = (channel: string, content: string, from = 0) =>
    botAction(
      (a) => (a.kind === "post" || a.kind === "reply") && a.channelId === channel && a.message.body.content === content,
      from,
    );
  const queueSettled = async (channel: string) => {
    const marker = `marker ${teams.sent.items.length}`;
    await post(api, { text: marker, username: "carol", gateway: "main" });
    await posted(channel, html(`[api] &lt;carol&gt; ${marker}`));
  };
  const start = async () => {
    ({ bridge, api, stream } = await startWithApiStream(bridgeConfig(teams, channels), teardown, { dir }));
  };

  before(async () => {
    teams = await startTeamsSimulator(teardown);
    bridgeUser = teams.createBridgeUser("Bridge");
    ana = teams.createUser("Ana");
    bob = teams.createUser("Bob");
    channels = { general: teams.createChannel("General"), random: teams.createChannel("Random") };
    ana.say(channels.general, html("history before the bridge"));
    dir = mkdtempSync(join(tmpdir(), "msteams-test-"));
    teardown.after(() => rmSync(dir, { recursive: true, force: true }));
    codes = signInAs(teams, bridgeUser);
    await start();
  });

  it("signs in with a device code named in the log and keeps the session in a 0600 file beside the config", () => {
    assert.equal(codes.length, 1);
    assert.match(
      bridge.process.output,
      new RegExp(`open https://microsoft\\.com/devicelogin and enter the code ${codes[0]}`),
    );
    const file = join(dir, "matterbridge.msteams-work.json");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, "utf8"), /"refreshToken"/);
    assert.ok(!bridge.process.output.includes(String(JSON.parse(readFileSync(file, "utf8")).refreshToken)));
  });

  it("relays a message to the api and the other channel, HTML converted and escaped", async () => {
    ana.say(channels.general, html('hello <b>teams</b> &amp; <at id="0">Bob</at>'));
    const got = await apiMessage((m) => m.text.startsWith("hello"));
    assert.equal(got.text, "hello **teams** & @Bob");
    assert.equal(got.username, "Ana@msteams");
    assert.equal(got.userid, ana.user.id);
    await posted(channels.random, html("[msteams] &lt;Ana&gt; hello **teams** &amp; @Bob"));
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("posts an api message escaped under the nick, and does not relay its own message back", async () => {
    const from = stream.items.length;
    await post(api, { text: "<b>not bold</b>\nline two", username: "carol", gateway: "main" });
    await posted(channels.general, html("[api] &lt;carol&gt; &lt;b&gt;not bold&lt;/b&gt;<br>line two"));
    ana.say(channels.general, html("sentinel"));
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays actions both ways", async () => {
    ana.say(channels.general, html("<em>waves</em>"));
    assert.equal((await apiMessage((m) => m.text === "waves")).event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    await posted(channels.general, html("[api] &lt;carol&gt; <em>waves back</em>"));
  });

  it("maps an edit and a delete to the bridge's copy in the other channel", async () => {
    const original = ana.say(channels.general, html("a typo here"));
    const copy = await posted(channels.random, html("[msteams] &lt;Ana&gt; a typo here"));
    await queueSettled(channels.random);
    const from = teams.sent.items.length;
    ana.edit(channels.general, original, html("no typo here"));
    const edit = await botAction((a) => a.kind === "edit", from);
    assert.equal(edit.message.id, copy.message.id);
    assert.equal(edit.message.body.content, html("[msteams] &lt;Ana&gt; no typo here (edited)"));
    ana.delete(channels.general, original);
    const deleted = await botAction((a) => a.kind === "delete", from);
    assert.equal(deleted.message.id, copy.message.id);
  });

  it("keeps threads: a reply to the bridge's copy is a reply to the original", async () => {
    const root = ana.say(channels.general, html("who agrees?"));
    const copy = await posted(channels.random, html("[msteams] &lt;Ana&gt; who agrees?"));
    await queueSettled(channels.random);
    bob.say(channels.random, html("I agree"), { replyTo: copy.message.id });
    const reply = await posted(channels.general, html("[msteams] &lt;Bob&gt; I agree"));
    assert.equal(reply.kind, "reply");
    assert.equal(reply.message.replyToId, root);
    // An edit of that reply reaches the bridge's reply.
    await queueSettled(channels.general);
    const from = teams.sent.items.length;
    const bobsReply = teams.world.channels.get(channels.random)?.replies.get(copy.message.id)?.[0]?.id ?? "";
    bob.edit(channels.random, bobsReply, html("I agree!"), { replyTo: copy.message.id });
    const edit = await botAction((a) => a.kind === "edit", from);
    assert.equal(edit.message.id, reply.message.id);
  });

  it("waits as a 429 says and then delivers in order", async () => {
    const from = teams.sent.items.length;
    teams.rateLimit(1, { retryAfter: 1, method: "POST" });
    await post(api, { text: "limited one", username: "carol", gateway: "main" });
    await post(api, { text: "limited two", username: "carol", gateway: "main" });
    await posted(channels.general, html("[api] &lt;carol&gt; limited two"), from);
    assert.ok(teams.requests.some((line) => line.startsWith("POST") && line.endsWith("-> 429")));
    const order = teams.sent.items
      .slice(from)
      .filter((a) => a.channelId === channels.general)
      .map((a) => a.message.body.content);
    assert.deepEqual(order, [html("[api] &lt;carol&gt; limited one"), html("[api] &lt;carol&gt; limited two")]);
  });

  it("after an outage, delivers what was said meanwhile both ways", async () => {
    const logFrom = bridge.process.output.length;
    const logs = () => bridge.process.output.slice(logFrom);
    teams.setReachable(false);
    await waitUntil(() => logs().includes("msteams.work disconnected"), {
      timeoutMs: WAIT_MS,
      what: "the outage noticed",
    });
    await post(api, { text: "while down", username: "carol", gateway: "main" });
    ana.say(channels.general, html("said during the outage"));
    const streamFrom = stream.items.length;
    teams.setReachable(true);
    await posted(channels.general, html("[api] &lt;carol&gt; while down"));
    await apiMessage((m) => m.text === "said during the outage", streamFrom);
    ana.say(channels.general, html("after the outage"));
    await apiMessage((m) => m.text === "after the outage", streamFrom);
    assert.equal(stream.items.filter((m) => m.text === "said during the outage").length, 1);
  });

  it("after a restart, uses the kept session and reads back what was said while stopped", async () => {
    await bridge.process.stop();
    ana.say(channels.general, html("said while the bridge was stopped"));
    await start();
    assert.equal(codes.length, 1, "no new sign-in");
    assert.doesNotMatch(bridge.process.output, /enter the code/);
    await posted(channels.random, html("[msteams] &lt;Ana&gt; said while the bridge was stopped"));
  });

  it("when Microsoft revokes the session while running, asks for a new sign-in and goes on", async () => {
    const logFrom = bridge.process.output.length;
    teams.identity.revokeRefreshTokens();
    teams.identity.expireAccessTokens();
    await waitUntil(
      () => codes.length === 2 && bridge.process.output.slice(logFrom).includes(`enter the code ${codes[1]}`),
      {
        timeoutMs: WAIT_MS,
        what: "a new device code in the log",
      },
    );
    const streamFrom = stream.items.length;
    ana.say(channels.general, html("after signing in again"));
    await apiMessage((m) => m.text === "after signing in again", streamFrom);
  });

  it("made no request the simulator does not know", () => {
    assert.deepEqual(teams.unhandled, []);
  });
});

describe("msteams account start-up failures", () => {
  const teardown = suiteTeardown();

  async function failing(edit: (toml: string, teams: TeamsSimulator) => string, dir?: string) {
    const teams = await startTeamsSimulator(teardown);
    signInAs(teams, teams.createBridgeUser("Bridge"));
    const channels = { general: teams.createChannel("General"), random: teams.createChannel("Random") };
    return startBridgeProcess(edit(bridgeConfig(teams, channels), teams), teardown, dir === undefined ? {} : { dir });
  }

  it("names ClientID, TenantID or TeamID when Microsoft refuses it", async () => {
    await assert.rejects(
      failing((toml, teams) => toml.replace(teams.clientId, "not-an-app")),
      /\[msteams\.work\].*Microsoft refused ClientID/,
    );
    await assert.rejects(
      failing((toml, teams) => toml.replace(`TenantID = "${teams.tenantId}"`, 'TenantID = "nope"')),
      /\[msteams\.work\].*Microsoft refused TenantID/,
    );
    await assert.rejects(
      failing((toml, teams) => toml.replace(`TeamID = "${teams.teamId}"`, 'TeamID = "no-such-team"')),
      /\[msteams\.work\].*no team no-such-team.*TeamID/,
    );
  });

  it("refuses a SessionFile that is a symbolic link, leaving its target untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "msteams-link-"));
    teardown.after(() => rmSync(dir, { recursive: true, force: true }));
    const target = join(dir, "precious.txt");
    writeFileSync(target, "precious");
    symlinkSync(target, join(dir, "matterbridge.msteams-work.json"));
    await assert.rejects(
      failing((toml) => toml, dir),
      /\[msteams\.work\].*SessionFile .* is a symbolic link/,
    );
    assert.equal(readFileSync(target, "utf8"), "precious");
  });
});
