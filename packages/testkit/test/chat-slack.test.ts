// The Slack simulator, validated with Slack's own client libraries (unmodified): @slack/web-api's WebClient calls the
// methods the bridge uses and gets Slack's answers and error codes (as the library's PlatformError and
// RateLimitedError); @slack/socket-mode's SocketModeClient connects through apps.connections.open, receives what
// humans do as events_api envelopes, acknowledges them and follows a `disconnect` request; events raised while it had no connection arrive when it
// connects.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SocketModeClient } from "@slack/socket-mode";
import { ErrorCode, WebClient } from "@slack/web-api";
import { Inbox, startSlackSimulator, suiteTeardown, waitUntil } from "../src/index.ts";

const teardown = suiteTeardown();
const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => "error", setName() {} };

type Event = Record<string, unknown> & { type: string; subtype?: string; text?: string; ts?: string };

async function connectSocketMode(appToken: string, slackApiUrl: string) {
  const client = new SocketModeClient({
    appToken,
    clientOptions: { slackApiUrl },
    // biome-ignore lint/suspicious/noExplicitAny: the library's Logger interface, satisfied by `quiet`
    logger: quiet as any,
  });
  const events = new Inbox<Event>();
  client.on("slack_event", async ({ ack, body }: { ack: () => Promise<void>; body?: { event?: Event } }) => {
    try {
      await ack();
    } catch {
      return; // a connection closing under a refresh: the simulator delivers the event again, as Slack does
    }
    if (body?.event) events.push(body.event);
  });
  await client.start();
  teardown.after(() => client.disconnect());
  return { client, events };
}

describe("Slack simulator through @slack/web-api and @slack/socket-mode", () => {
  it("answers the Web API methods as Slack does", async () => {
    const slack = await startSlackSimulator(teardown);
    const app = slack.createApp("relay");
    const ana = slack.createUser("ana", { displayName: "Ana B", realName: "Ana Banana" });
    const general = slack.createChannel("general", [ana, app]);
    slack.createChannel("random", [ana]);
    const web = new WebClient(app.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });

    const auth = await web.auth.test();
    assert.equal(auth.user_id, app.user.id);
    assert.equal(auth.bot_id, app.botId);

    const first = await web.conversations.list({ limit: 1, types: "public_channel" });
    assert.equal(first.channels?.length, 1);
    const cursor = first.response_metadata?.next_cursor;
    assert.ok(cursor);
    const second = await web.conversations.list({ limit: 1, cursor });
    assert.equal(second.response_metadata?.next_cursor, "");
    const names = [...(first.channels ?? []), ...(second.channels ?? [])].map((c) => `${c.name}:${c.is_member}`);
    assert.deepEqual(names.sort(), ["general:true", "random:false"]);

    const user = await web.users.info({ user: ana.id });
    assert.equal(user.user?.profile?.display_name, "Ana B");
    assert.equal(user.user?.real_name, "Ana Banana");

    const posted = await web.chat.postMessage({ channel: general, text: "hi", username: "[irc] <ivan>" });
    assert.equal(posted.channel, general);
    assert.equal(posted.message?.username, "[irc] <ivan>");
    const updated = await web.chat.update({ channel: general, ts: posted.ts as string, text: "hi there" });
    assert.equal(updated.text, "hi there");
    const reply = await web.chat.postMessage({ channel: general, text: "in thread", thread_ts: posted.ts as string });
    assert.equal(reply.message?.thread_ts, posted.ts);
    await web.chat.delete({ channel: general, ts: posted.ts as string });
    assert.deepEqual(
      slack.history(general).map((m) => m.text),
      ["in thread"],
    );
    assert.deepEqual(
      slack.sent.items.map((a) => a.kind),
      ["post", "update", "post", "delete"],
    );
  });

  it("reports Slack's error codes and rate limits through the library's errors", async () => {
    const slack = await startSlackSimulator(teardown);
    const app = slack.createApp("relay");
    const ana = slack.createUser("ana");
    const general = slack.createChannel("general", [ana]);
    const platformError = async (call: Promise<unknown>, code: string) => {
      await assert.rejects(call, (error: { code?: string; data?: { error?: string } }) => {
        assert.equal(error.code, ErrorCode.PlatformError);
        assert.equal(error.data?.error, code);
        return true;
      });
    };
    const web = new WebClient(app.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await platformError(web.chat.postMessage({ channel: general, text: "x" }), "not_in_channel");
    await platformError(web.chat.postMessage({ channel: "C404", text: "x" }), "channel_not_found");
    const wrong = new WebClient("xoxb-not-a-token", { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await platformError(wrong.auth.test(), "invalid_auth");
    const appTokenAsBot = new WebClient(app.appToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await platformError(appTokenAsBot.auth.test(), "not_allowed_token_type");
    const own = ana.say(general, "mine");
    slack.createChannel("bots", [app]);
    await platformError(web.chat.update({ channel: general, ts: own, text: "x" }), "cant_update_message");

    slack.rateLimit(1, { retryAfter: 2, method: "auth.test" });
    const strict = new WebClient(app.botToken, { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true });
    await assert.rejects(strict.auth.test(), (error: { code?: string; retryAfter?: number }) => {
      assert.equal(error.code, ErrorCode.RateLimitedError);
      assert.equal(error.retryAfter, 2);
      return true;
    });
    assert.equal((await strict.auth.test()).ok, true);
  });

  it("delivers what humans do as acknowledged events, and again after a refresh request", async () => {
    const slack = await startSlackSimulator(teardown);
    const app = slack.createApp("relay");
    const ana = slack.createUser("ana");
    const general = slack.createChannel("general", [ana, app]);
    const { events } = await connectSocketMode(app.appToken, slack.apiUrl);

    const ts = ana.say(general, "hello");
    const hello = await events.waitFor((e) => e.text === "hello");
    assert.equal(hello.user, ana.id);
    assert.equal(hello.channel, general);
    ana.say(general, "threaded", { threadTs: ts });
    assert.equal((await events.waitFor((e) => e.text === "threaded")).thread_ts, ts);
    ana.me(general, "waves");
    assert.equal((await events.waitFor((e) => e.text === "waves")).subtype, "me_message");
    ana.edit(general, ts, "hello again");
    const edit = await events.waitFor((e) => e.subtype === "message_changed");
    assert.equal((edit.message as Event).text, "hello again");
    assert.equal((edit.message as Event).ts, ts);
    ana.delete(general, ts);
    assert.equal((await events.waitFor((e) => e.subtype === "message_deleted")).deleted_ts, ts);
    const bob = slack.createUser("bob");
    bob.join(general);
    await events.waitFor((e) => e.type === "member_joined_channel" && e.user === bob.id);
    await waitUntil(() => slack.acknowledged.length >= 6, { what: "the client's acks" });

    // A refresh request: the library opens a new connection by itself.
    slack.requestRefresh();
    ana.say(general, "after refresh");
    await events.waitFor((e) => e.text === "after refresh", { timeoutMs: 20_000 });
  });

  it("keeps events while an app has no connection and delivers them when it connects", async () => {
    const slack = await startSlackSimulator(teardown);
    const app = slack.createApp("relay");
    const ana = slack.createUser("ana");
    const general = slack.createChannel("general", [ana, app]);
    ana.say(general, "said before the app connected");
    const { events } = await connectSocketMode(app.appToken, slack.apiUrl);
    const got = await events.waitFor((e) => e.text === "said before the app connected");
    assert.equal(got.channel, general);
    assert.equal(slack.openConnections(app), 1);
  });
});
