// The real bin against a Slack simulator that misbehaves or is abused: events a server should never send (null, an
// event without a type, a message whose fields have the wrong types) are skipped with one log line and the next
// message is relayed; a message mentioning thousands of unknown users costs a bounded number of users.info calls
// and holds up nothing; a rate-limited lookup of the sender shows the sender's id instead of dropping the message;
// and echoes of the app's own posts that lost their bot id, user and app id do not ping-pong between two channels.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type SlackSimulator, startSlackSimulator } from "@switchboard/testkit";
import { suiteTeardown } from "./helpers.ts";
import { skippedLines, startInboundRun } from "./inbound-fixture.ts";

describe("slack inbound faults", () => {
  const teardown = suiteTeardown();

  async function start(options: { secondChannel?: boolean } = {}) {
    const slack = await startSlackSimulator(teardown);
    const app = slack.createApp("bridge");
    const ana = slack.createUser("ana");
    const bob = slack.createUser("bob");
    slack.createChannel("general", [ana, bob, app]);
    slack.createChannel("random", [ana, bob, app]);
    const run = await startInboundRun(teardown, {
      account: `[slack.ws]\nToken = "${app.botToken}"\nAppToken = "${app.appToken}"\nApiURL = "${slack.apiUrl}"\nRemoteNickFormat = "<{NICK}> "`,
      accountId: "slack.ws",
      channel: "general",
      extra: options.secondChannel ? '  [[gateway.inout]]\n  account = "slack.ws"\n  channel = "random"\n' : "",
    });
    return { slack, app, ana, bob, run };
  }

  const lookups = (slack: SlackSimulator) => slack.calls.filter((call) => call.startsWith("users.info")).length;

  it("skips malformed events with one log line and relays the next message", async () => {
    const { slack, app, ana, run } = await start();
    const general = slack.world.channel("general")?.id;
    for (const event of [
      null,
      42,
      { channel: general, text: "no type" },
      { type: "message", channel: general, ts: 1.5, text: { a: 1 }, user: ["U1"] },
      { type: "message", subtype: "message_changed", channel: general, message: "changed" },
      { type: "message", subtype: "message_deleted", channel: general, deleted_ts: null },
    ]) {
      slack.injectEvent(app, event);
    }
    ana.say("general", "after the faults");

    await run.waitForRelayed((m) => m.text === "after the faults", "the message after the malformed events");
    run.assertAlive();
    assert.deepEqual(
      run.relayed().map((m) => m.text),
      ["after the faults"],
    );
    const lines = await skippedLines(run);
    assert.equal(lines.length, 1, `one rate-limited line for the burst:\n${lines.join("\n")}`);
    assert.match(lines[0] ?? "", /slack\.ws/);
    assert.match(lines[0] ?? "", /a Slack event/);
  });

  it("bounds the users.info calls a mention flood costs, remembers unknown users, and relays what follows", async () => {
    const { slack, ana, run } = await start();
    const ids = Array.from({ length: 5000 }, (_, n) => `UFLOOD${String(n).padStart(5, "0")}`);
    const before = lookups(slack);
    ana.say("general", ids.map((id) => `<@${id}>`).join(" "));
    ana.say("general", "right after the flood");

    const flood = await run.waitForRelayed((m) => m.text.startsWith("@UFLOOD"), "the flood, with ids for names");
    assert.equal(flood.text, ids.map((id) => `@${id}`).join(" "), "every mention shown, by id");
    await run.waitForRelayed((m) => m.text === "right after the flood", "the next message");
    const flooded = lookups(slack) - before;
    assert.ok(flooded <= 11, `at most 10 mentions and the sender looked up, not ${flooded}`);

    // The users Slack did not know are remembered: mentioning them again asks nothing.
    const asked = ids.slice(0, 3);
    const again = lookups(slack);
    ana.say("general", asked.map((id) => `<@${id}>`).join(" "));
    await run.waitForRelayed((m) => m.text === asked.map((id) => `@${id}`).join(" "), "the repeated mentions");
    assert.equal(lookups(slack), again, "no users.info for users known to be unknown");
    run.assertAlive();
  });

  it("relays a message whose sender cannot be looked up (429) under the sender's id", async () => {
    const { slack, run } = await start();
    const carl = slack.createUser("carl");
    slack.world.channel("general")?.members.add(carl.id);
    slack.rateLimit(1, { method: "users.info", retryAfter: 30 });
    carl.say("general", "hello while rate limited");
    const got = await run.waitForRelayed((m) => m.text === "hello while rate limited", "carl's message");
    assert.equal(got.username, carl.id, "the id stands in for the name");
    assert.equal(got.userid, carl.id);
    assert.ok(slack.calls.includes("users.info -> 429 ratelimited"), "the lookup was refused");
    run.assertAlive();
  });

  for (const lost of ["the bot id and user", "the bot id, user and app id"]) {
    it(`does not ping-pong between two channels when echoes lose ${lost}`, async () => {
      const { slack, app, ana, bob, run } = await start({ secondChannel: true });
      slack.rewriteEvents((event) => {
        if (event.bot_id !== app.botId) return event;
        const { bot_id: _bot, user: _user, app_id: appId, bot_profile: _profile, ...rest } = event;
        return lost.includes("app id") ? { ...rest, user: bob.id } : { ...rest, user: bob.id, app_id: appId };
      });
      ana.say("general", "ping");
      await slack.sent.waitFor((a) => a.channel === "random" && a.message.text === "ping", { what: "the copy" });
      ana.say("general", "marker from general");
      bob.say("random", "marker from random");
      await slack.sent.waitFor((a) => a.channel === "general" && a.message.text === "marker from random", {
        what: "the random marker in general",
      });
      await slack.sent.waitFor((a) => a.channel === "random" && a.message.text === "marker from general", {
        what: "the general marker in random",
      });
      await run.waitForRelayed((m) => m.text === "marker from random", "the random marker on the api");

      run.assertAlive();
      assert.deepEqual(
        slack.sent.items.map((a) => `${a.channel}: ${a.message.text}`),
        ["random: ping", "random: marker from general", "general: marker from random"],
        "each message copied once, no echo copied back",
      );
      assert.deepEqual(
        run.relayed().map((m) => m.text),
        ["ping", "marker from general", "marker from random"],
      );
    });
  }
});
