// The real bin against a Mattermost simulator that misbehaves: WebSocket frames a server should never send (an
// event with `data: null`, a post that is not JSON or has no ids, a frame that is `null`) are skipped with one log
// line and the next post is relayed by the same process; and echoes of the bridge's own posts that lost their user
// id (and their props) are still recognised, so two bridged channels of one account do not ping-pong.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type MattermostSimulator, startMattermostSimulator } from "@switchboard/testkit";
import { suiteTeardown } from "./helpers.ts";
import { type InboundRun, skippedLines, startInboundRun } from "./inbound-fixture.ts";

describe("mattermost inbound faults", () => {
  const teardown = suiteTeardown();

  async function start(options: { secondChannel?: boolean } = {}) {
    const mm = await startMattermostSimulator(teardown);
    const bot = mm.createBot("bridgebot", "botpw");
    const ana = mm.createUser("ana");
    const bob = mm.createUser("bob");
    mm.createChannel("general", [ana, bob]);
    mm.createChannel("random", [ana, bob]);
    const run = await startInboundRun(teardown, {
      account: `[mattermost.mm]\nServer = "${mm.hostPort}"\nNoTLS = true\nTeam = "${mm.teamName}"\nLogin = "bridgebot"\nPassword = "botpw"\nRemoteNickFormat = "<{NICK}> "`,
      accountId: "mattermost.mm",
      channel: "general",
      extra: options.secondChannel ? '  [[gateway.inout]]\n  account = "mattermost.mm"\n  channel = "random"\n' : "",
    });
    return { mm, bot, ana, bob, run };
  }

  it("skips malformed WebSocket events with one log line and relays the next post", async () => {
    const { mm, bot, ana, run } = await start();
    const channel = mm.world.channelByName("general")?.id ?? "";
    const frames: unknown[] = [
      { event: "posted", data: null, seq: 90 },
      { event: "posted", data: { post: "{not json" }, seq: 91 },
      { event: "posted", data: { post: "null" }, seq: 92 },
      { event: "post_edited", data: { post: JSON.stringify({ id: 7, channel_id: channel }) }, seq: 93 },
      { event: "post_deleted", data: [1, 2, 3], seq: 94 },
      null,
      42,
      { event: null, data: "x" },
    ];
    for (const frame of frames) mm.injectEvent(bot.user.id, frame);
    ana.say("general", "after the faults");

    await run.waitForRelayed((m) => m.text === "after the faults", "the post after the malformed events");
    run.assertAlive();
    assert.deepEqual(
      run.relayed().map((m) => m.text),
      ["after the faults"],
    );
    const lines = await skippedLines(run);
    assert.equal(lines.length, 1, `one rate-limited line for the burst:\n${lines.join("\n")}`);
    assert.match(lines[0] ?? "", /mattermost\.mm/);
    assert.match(lines[0] ?? "", /a Mattermost posted event/);
  });

  /** Says a marker in each channel and waits until both crossed: anything queued before them has been sent. */
  async function crossMarkers(mm: MattermostSimulator, run: InboundRun, humans: { ana: Human; bob: Human }) {
    humans.ana.say("general", "marker from general");
    humans.bob.say("random", "marker from random");
    await mm.sent.waitFor((a) => a.channel === "random" && a.post.message === "marker from general", {
      what: "the general marker in random",
    });
    await mm.sent.waitFor((a) => a.channel === "general" && a.post.message === "marker from random", {
      what: "the random marker in general",
    });
    await run.waitForRelayed((m) => m.text === "marker from random", "the random marker on the api");
  }

  for (const lost of ["the user id", "the user id and the props"]) {
    it(`does not ping-pong between two channels when echoes lose ${lost}`, async () => {
      const { mm, bot, ana, bob, run } = await start({ secondChannel: true });
      // The server shows the bot's posts as made by someone else (a webhook's owner, a rewriting proxy).
      mm.rewriteEvents((frame) => {
        const data = frame.data as { post?: unknown } | undefined;
        if (typeof data?.post !== "string") return frame;
        const post = JSON.parse(data.post) as { user_id: string; props?: unknown };
        if (post.user_id !== bot.user.id) return frame;
        post.user_id = bob.id;
        if (lost.includes("props")) delete post.props;
        return { ...frame, data: { ...data, post: JSON.stringify(post) } };
      });
      ana.say("general", "ping");
      await mm.sent.waitFor((a) => a.channel === "random" && a.post.message === "ping", { what: "the copy" });
      await crossMarkers(mm, run, { ana, bob });

      run.assertAlive();
      assert.deepEqual(
        mm.sent.items.map((a) => `${a.channel}: ${a.post.message}`),
        ["random: ping", "random: marker from general", "general: marker from random"],
        "each message copied once, no echo copied back",
      );
      assert.deepEqual(
        run.relayed().map((m) => `${m.channel}: ${m.text}`),
        ["general: ping", "general: marker from general", "random: marker from random"],
      );
    });
  }
});

type Human = { say(channel: string, text: string): string };
