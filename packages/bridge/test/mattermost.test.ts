// The mattermost account against the Mattermost simulator (testkit; itself validated with @mattermost/client), with
// humans in two channels the account bridges and an api account on the same gateway: text both ways with
// RemoteNickFormat (posted under the relayed nick), nicknames, actions, edits, deletes and thread replies mapped from
// one channel to the bridge's copies in the other through the id cache, joins with ShowJoinPart, a 429 followed by
// delivery in order, an outage followed by delivery of what was said meanwhile both ways (read back from the API),
// and refused credentials as start-up errors.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type MattermostBotAction,
  type MattermostHuman,
  type MattermostSimulator,
  startMattermostSimulator,
  waitUntil,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { startBridgeProcess } from "./bridge-process.ts";
import { openStream, post, type RunningBridge, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

function bridgeConfig(mm: MattermostSimulator, auth: string, account = "mattermost.mm"): string {
  return `
[${account}]
Server = "${mm.hostPort}"
NoTLS = true
Team = "${mm.teamName}"
${auth}
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
EditSuffix = " (edited)"
IconURL = "https://robohash.example/{NICK}.png"
ReconnectDelay = 50
ReconnectMaxDelay = 200

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}@{PROTOCOL}"
ShowJoinPart = true

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "${account}"
  channel = "general"
  [[gateway.inout]]
  account = "${account}"
  channel = "random"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

describe("mattermost account with the Mattermost simulator", () => {
  const teardown = suiteTeardown();
  let mm: MattermostSimulator;
  let ana: MattermostHuman;
  let bob: MattermostHuman;
  let bridge: RunningBridge;
  let api: string;
  let stream: StreamClient;
  let botToken: string;

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const botAction = (matches: (a: MattermostBotAction) => boolean, from = 0) =>
    mm.sent.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "a bot action" });
  /** Returns once every send to `channel` so far was answered (see slack.test.ts): its ids are in the id cache. */
  const queueSettled = async (channel: string) => {
    const marker = `marker ${mm.sent.items.length}`;
    await post(api, { text: marker, username: "carol", gateway: "main" });
    await botAction((a) => a.channel === channel && a.post.message === marker);
  };

  before(async () => {
    mm = await startMattermostSimulator(teardown);
    const bot = mm.createBot("bridgebot", "botpw");
    botToken = bot.token;
    ana = mm.createUser("ana", { nickname: "Ana B" });
    bob = mm.createUser("bob");
    mm.createChannel("general", [ana, bob]);
    mm.createChannel("random", [ana, bob]);
    ana.say("general", "history before the bridge");
    bridge = await startBridge(bridgeConfig(mm, 'Login = "bridgebot"\nPassword = "botpw"'), teardown);
    api = bridge.url("api.local");
    stream = await openStream(api);
    teardown.after(() => stream.close());
  });

  it("joined both channels and relays a post to the api and the other channel under the nickname", async () => {
    assert.ok(mm.world.channelByName("general")?.members.size === 3);
    ana.say("general", "hello from mattermost");
    const got = await apiMessage((m) => m.text === "hello from mattermost");
    assert.equal(got.username, "Ana B@mattermost");
    assert.equal(got.userid, ana.id);
    assert.equal(got.channel, "general");
    const copy = await botAction((a) => a.channel === "random" && a.post.message === "hello from mattermost");
    assert.equal(copy.post.props.override_username, "[mattermost] <Ana B>");
    assert.equal(copy.post.props.from_switchboard, true);
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("posts an api message under the nick with an icon, and does not relay its own post back", async () => {
    const from = stream.items.length;
    await post(api, { text: "hello from the api", username: "carol", gateway: "main" });
    const posted = await botAction((a) => a.channel === "general" && a.post.message === "hello from the api");
    assert.equal(posted.post.props.override_username, "[api] <carol>");
    assert.equal(
      posted.post.props.override_icon_url,
      `https://robohash.example/${encodeURIComponent("[api] <carol>")}.png`,
    );
    ana.say("general", "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays actions both ways", async () => {
    ana.say("general", "*waves*");
    assert.equal((await apiMessage((m) => m.text === "waves")).event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    await botAction((a) => a.channel === "general" && a.post.message === "*waves back*");
  });

  it("maps an edit and a delete to the bridge's copy in the other channel", async () => {
    const original = ana.say("general", "a typo here");
    const copy = await botAction((a) => a.channel === "random" && a.post.message === "a typo here");
    const from = mm.sent.items.length;
    ana.edit(original, "no typo here");
    const edit = await botAction((a) => a.kind === "edit", from);
    assert.equal(edit.post.id, copy.post.id);
    assert.equal(edit.post.message, "no typo here (edited)");
    assert.equal((await apiMessage((m) => m.text.startsWith("no typo"))).text, "no typo here (edited)");
    ana.delete(original);
    const deleted = await botAction((a) => a.kind === "delete", from);
    assert.equal(deleted.post.id, copy.post.id);
  });

  it("keeps threads: a reply to the bridge's copy lands in the original's thread", async () => {
    const root = ana.say("general", "who agrees?");
    const copy = await botAction((a) => a.channel === "random" && a.post.message === "who agrees?");
    await queueSettled("random");
    bob.say("random", "I agree", { rootId: copy.post.id });
    const reply = await botAction((a) => a.channel === "general" && a.post.message === "I agree");
    assert.equal(reply.post.root_id, root);
    // A reply to that reply still goes to the thread's root (Mattermost threads are flat).
    await queueSettled("general");
    ana.say("general", "me too", { rootId: reply.post.id });
    const second = await botAction((a) => a.channel === "random" && a.post.message === "me too");
    assert.equal(second.post.root_id, copy.post.id);
  });

  it("relays joins to an account with ShowJoinPart", async () => {
    const carl = mm.createUser("carl");
    carl.join("general");
    const joined = await apiMessage((m) => m.event === "join_leave");
    assert.equal(joined.text, "carl joined the channel.");
  });

  it("waits as a 429 says and then delivers in order", async () => {
    const from = mm.sent.items.length;
    mm.rateLimit(1, { retryAfter: 1, path: /\/posts$/ });
    await post(api, { text: "limited one", username: "carol", gateway: "main" });
    await post(api, { text: "limited two", username: "carol", gateway: "main" });
    await botAction((a) => a.channel === "general" && a.post.message === "limited two", from);
    assert.ok(mm.requests.some((line) => line === "POST /api/v4/posts -> 429"));
    const order = mm.sent.items
      .slice(from)
      .filter((a) => a.channel === "general")
      .map((a) => a.post.message);
    assert.deepEqual(order, ["limited one", "limited two"]);
  });

  it("after an outage, delivers what was said meanwhile both ways", async () => {
    const logFrom = bridge.logs.length;
    mm.setReachable(false);
    await waitUntil(() => bridge.logs.slice(logFrom).some((line) => line.includes("mattermost.mm disconnected")), {
      timeoutMs: WAIT_MS,
      what: "the bridge to notice the outage",
    });
    await post(api, { text: "while down one", username: "carol", gateway: "main" });
    await post(api, { text: "while down two", username: "carol", gateway: "main" });
    ana.say("general", "said during the outage");
    const from = mm.sent.items.length;
    mm.setReachable(true);
    await botAction((a) => a.channel === "general" && a.post.message === "while down two", from);
    const order = mm.sent.items
      .slice(from)
      .filter((a) => a.channel === "general")
      .map((a) => a.post.message);
    assert.deepEqual(order, ["while down one", "while down two"]);
    await apiMessage((m) => m.text === "said during the outage");
    await waitUntil(() => bridge.logs.slice(logFrom).some((line) => line.includes("mattermost.mm reconnected")), {
      timeoutMs: WAIT_MS,
      what: "the reconnected log line",
    });
  });

  it("logs in with a token as well", async () => {
    const viaToken = await startBridge(bridgeConfig(mm, `Token = "${botToken}"`, "mattermost.tok"), teardown);
    assert.ok(viaToken.logs.some((line) => line.includes("logged in to Mattermost") && line.includes("bridgebot")));
  });

  it("fails start-up with one error naming the account for refused credentials or an unknown team", async () => {
    await assert.rejects(
      startBridge(bridgeConfig(mm, 'Login = "bridgebot"\nPassword = "wrong"', "mattermost.pw"), teardown),
      /\[mattermost\.pw\].*Mattermost refused Login and Password/,
    );
    await assert.rejects(
      startBridge(bridgeConfig(mm, 'Token = "not-a-token"', "mattermost.badtoken"), teardown),
      /\[mattermost\.badtoken\].*Mattermost refused Token/,
    );
    const wrongTeam = bridgeConfig(mm, `Token = "${botToken}"`, "mattermost.team").replace(
      `Team = "${mm.teamName}"`,
      'Team = "nope"',
    );
    await assert.rejects(startBridge(wrongTeam, teardown), /\[mattermost\.team\].*no team "nope"/);
  });

  it("made no request the simulator does not know", () => {
    assert.deepEqual(mm.unhandled, []);
  });
});

describe("mattermost account with a self-signed TLS server", () => {
  const teardown = suiteTeardown();

  /** A simulator over https and wss, Ana and the bot in its channels, and a config that skips the TLS check. */
  async function secureServer() {
    const mm = await startMattermostSimulator(teardown, { tls: true });
    const bot = mm.createBot("bridgebot", "botpw");
    const ana = mm.createUser("ana");
    mm.createChannel("general", [ana, bot]);
    mm.createChannel("random", [ana, bot]);
    const secure = bridgeConfig(mm, `Token = "${bot.token}"\nSkipTLSVerify = true`).replace("NoTLS = true\n", "");
    return { mm, bot, ana, secure };
  }

  it("connects over https and wss with SkipTLSVerify, and refuses the certificate without it", async () => {
    const { mm, bot, ana, secure } = await secureServer();
    const bridge = await startBridge(secure, teardown);
    const stream = await openStream(bridge.url("api.local"));
    teardown.after(() => stream.close());
    ana.say("general", "over tls");
    await waitUntil(() => stream.items.find((m) => m.text === "over tls"), { timeoutMs: WAIT_MS, what: "the post" });
    assert.equal(mm.webSocketConnections(bot.user.id), 1);

    const strict = await startBridge(
      secure.replace("SkipTLSVerify = true", "").replaceAll("mattermost.mm", "mattermost.strict"),
      teardown,
    );
    assert.ok(
      strict.logs.some((line) => line.includes("mattermost.strict cannot connect") && /certificate/i.test(line)),
      strict.logs.join("\n"),
    );
  });

  it("connects over wss from the bin too, whose bundled ws loads https and tls on first use", async () => {
    const { mm, bot, ana, secure } = await secureServer();
    const bridge = await startBridgeProcess(secure, teardown);
    const stream = await openStream(bridge.url("api.local"));
    teardown.after(() => stream.close());
    await waitUntil(() => mm.webSocketConnections(bot.user.id) === 1, { timeoutMs: WAIT_MS, what: "the wss socket" });
    ana.say("general", "over wss");
    await waitUntil(() => stream.items.find((m) => m.text === "over wss"), { timeoutMs: WAIT_MS, what: "the post" });
  });
});
