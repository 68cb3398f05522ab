// The slack account through @slack/web-api and @slack/socket-mode against the Slack simulator (testkit), with humans
// in two channels the app bridges and an api account on the same gateway: text both ways with RemoteNickFormat,
// mentions and links made readable, /me, edits, deletes and thread replies mapped from one channel to the app's
// copies in the other through the id cache, joins with ShowJoinPart, a 429 followed by delivery in order, a cut
// Socket Mode connection followed by delivery of what was said meanwhile both ways, and refused tokens as start-up
// errors.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type SlackApp,
  type SlackBotAction,
  type SlackHuman,
  type SlackSimulator,
  startSlackSimulator,
  waitUntil,
} from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import { openStream, post, type RunningBridge, type StreamClient, startBridge, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 10_000;

function bridgeConfig(slack: SlackSimulator, app: SlackApp, account = "slack.ws", extra = ""): string {
  return `
[${account}]
Token = "${app.botToken}"
AppToken = "${app.appToken}"
ApiURL = "${slack.apiUrl}"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
PreserveThreading = true
EditSuffix = " (edited)"
IconURL = "https://robohash.example/{NICK}.png"
ReconnectDelay = 50
ReconnectMaxDelay = 200
${extra}

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
  channel = "ID:${slack.world.channel("random")?.id}"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

describe("slack account with the Slack simulator", () => {
  const teardown = suiteTeardown();
  let slack: SlackSimulator;
  let app: SlackApp;
  let ana: SlackHuman;
  let bob: SlackHuman;
  let general: string;
  let random: string;
  let bridge: RunningBridge;
  let api: string;
  let stream: StreamClient;

  const apiMessage = (matches: (m: Message) => boolean, from = 0) =>
    stream.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "an api message" });
  const botAction = (matches: (a: SlackBotAction) => boolean, from = 0) =>
    slack.sent.waitFor(matches, { from, timeoutMs: WAIT_MS, what: "a bot action" });

  /**
   * Returns once the bridge has the answer to everything it sent to `channel` so far (ids known to the id cache): a
   * channel's queue sends one message at a time, so when a later marker arrives, the earlier sends were answered.
   */
  const queueSettled = async (channel: string) => {
    const marker = `marker ${slack.sent.items.length}`;
    await post(api, { text: marker, username: "carol", gateway: "main" });
    await botAction((a) => a.channel === channel && a.message.text === marker);
  };

  before(async () => {
    slack = await startSlackSimulator(teardown);
    app = slack.createApp("relay");
    ana = slack.createUser("ana", { displayName: "Ana B", realName: "Ana Banana" });
    bob = slack.createUser("bob");
    general = slack.createChannel("general", [ana, bob, app]);
    random = slack.createChannel("random", [ana, bob, app]);
    ana.say(general, "history before the bridge");
    bridge = await startBridge(bridgeConfig(slack, app), teardown);
    api = bridge.url("api.local");
    stream = await openStream(api);
    teardown.after(() => stream.close());
  });

  it("relays a Slack message to the api and the other channel, mentions and links readable", async () => {
    ana.say(general, `hi <@${bob.id}>, see <#${random}|random> and <https://example.com/a?b=1&amp;c=2|the docs> &lt;3`);
    const got = await apiMessage((m) => m.text.startsWith("hi @bob"));
    assert.equal(got.text, "hi @bob, see #random and [the docs](https://example.com/a?b=1&c=2) <3");
    assert.equal(got.username, "Ana B@slack");
    assert.equal(got.userid, ana.id);
    assert.equal(got.channel, "general");
    assert.match(got.avatar, /_192\.png$/);
    const copy = await botAction((a) => a.channel === "random" && a.message.text.startsWith("hi <@"));
    assert.equal(copy.message.username, "[slack] <Ana B>");
    // Escaped again for Slack: what the human wrote shows as they wrote it.
    assert.equal(
      copy.message.text,
      `hi <@${bob.id}>, see #random and [the docs](https://example.com/a?b=1&amp;c=2) &lt;3`,
    );
    assert.ok(!stream.items.some((m) => m.text.includes("history before the bridge")));
  });

  it("posts an api message under the nick with an icon, a known @name as a mention, and no echo", async () => {
    const from = stream.items.length;
    await post(api, { text: "hello @ana, **bold** <b> & co", username: "carol", gateway: "main" });
    const posted = await botAction((a) => a.channel === "general" && a.message.text.includes("bold"));
    assert.equal(posted.message.text, `hello <@${ana.id}>, *bold* &lt;b&gt; &amp; co`);
    assert.equal(posted.message.username, "[api] <carol>");
    assert.equal(posted.message.icons?.image_48, `https://robohash.example/${encodeURIComponent("[api] <carol>")}.png`);
    await botAction((a) => a.channel === "random" && a.message.text.includes("bold"));
    ana.say(general, "sentinel");
    await apiMessage((m) => m.text === "sentinel", from);
    assert.deepEqual(
      stream.items.slice(from).map((m) => m.text),
      ["sentinel"],
    );
  });

  it("relays /me both ways", async () => {
    ana.me(general, "waves");
    assert.equal((await apiMessage((m) => m.text === "waves")).event, "user_action");
    await post(api, { text: "waves back", username: "carol", gateway: "main", event: "user_action" });
    const action = await botAction((a) => a.channel === "general" && a.message.text.includes("waves back"));
    assert.equal(action.message.text, "_waves back_");
  });

  it("maps an edit and a delete to the app's copy in the other channel", async () => {
    const original = ana.say(general, "a typo here");
    const copy = await botAction((a) => a.channel === "random" && a.message.text === "a typo here");
    const from = slack.sent.items.length;
    ana.edit(general, original, "no typo here");
    const edit = await botAction((a) => a.kind === "update", from);
    assert.equal(edit.message.ts, copy.message.ts);
    assert.equal(edit.message.text, "no typo here (edited)");
    assert.equal((await apiMessage((m) => m.text.startsWith("no typo"))).text, "no typo here (edited)");

    ana.delete(general, original);
    const deleted = await botAction((a) => a.kind === "delete", from);
    assert.equal(deleted.message.ts, copy.message.ts);
    assert.equal(deleted.channel, "random");
  });

  it("keeps threads: a reply to the app's copy lands in the original's thread", async () => {
    const root = ana.say(general, "who agrees?");
    const copy = await botAction((a) => a.channel === "random" && a.message.text === "who agrees?");
    await queueSettled("random");
    bob.say(random, "I agree", { threadTs: copy.message.ts });
    const reply = await botAction((a) => a.channel === "general" && a.message.text === "I agree");
    assert.equal(reply.message.thread_ts, root);
    assert.equal(reply.message.username, "[slack] <bob>");
    assert.equal((await apiMessage((m) => m.text === "I agree")).parent_id, "msg-parent-not-found");
  });

  it("relays joins to an account with ShowJoinPart", async () => {
    const carl = slack.createUser("carl", { displayName: "Carl" });
    carl.join(general);
    const joined = await apiMessage((m) => m.event === "join_leave");
    assert.equal(joined.text, "@Carl has joined the channel");
  });

  it("waits as a 429 says and then delivers in order", async () => {
    const from = slack.sent.items.length;
    slack.rateLimit(1, { retryAfter: 1, method: "chat.postMessage" });
    await post(api, { text: "limited one", username: "carol", gateway: "main" });
    await post(api, { text: "limited two", username: "carol", gateway: "main" });
    await botAction((a) => a.channel === "general" && a.message.text === "limited two", from);
    assert.ok(slack.calls.includes("chat.postMessage -> 429 ratelimited"));
    const order = slack.sent.items
      .slice(from)
      .filter((a) => a.channel === "general")
      .map((a) => a.message.text);
    assert.deepEqual(order, ["limited one", "limited two"]);
  });

  it("after a cut connection, delivers what was said meanwhile both ways", async () => {
    const logFrom = bridge.logs.length;
    slack.setReachable(false);
    await waitUntil(() => bridge.logs.slice(logFrom).some((line) => line.includes("slack.ws disconnected")), {
      timeoutMs: WAIT_MS,
      what: "the bridge to notice the outage",
    });
    await post(api, { text: "while down one", username: "carol", gateway: "main" });
    await post(api, { text: "while down two", username: "carol", gateway: "main" });
    ana.say(general, "said during the outage");
    const from = slack.sent.items.length;
    slack.setReachable(true);
    await botAction((a) => a.channel === "general" && a.message.text === "while down two", from);
    const order = slack.sent.items
      .slice(from)
      .filter((a) => a.channel === "general")
      .map((a) => a.message.text);
    assert.deepEqual(order, ["while down one", "while down two"]);
    await apiMessage((m) => m.text === "said during the outage");
    await waitUntil(() => bridge.logs.slice(logFrom).some((line) => line.includes("slack.ws reconnected")), {
      timeoutMs: WAIT_MS,
      what: "the reconnected log line",
    });
  });

  it("fails start-up with one error naming the account when Slack refuses a token", async () => {
    const wrongBot = bridgeConfig(slack, { ...app, botToken: "xoxb-0-wrong" }, "slack.bad");
    await assert.rejects(startBridge(wrongBot, teardown), /\[slack\.bad\].*Token \(invalid_auth\)/);
    const wrongApp = bridgeConfig(slack, { ...app, appToken: "xapp-1-wrong" }, "slack.badapp");
    await assert.rejects(startBridge(wrongApp, teardown), /\[slack\.badapp\].*AppToken \(invalid_auth\)/);
  });

  it("made no request the simulator does not know", () => {
    assert.deepEqual(slack.unhandled, []);
  });
});
