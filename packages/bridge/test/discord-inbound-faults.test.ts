// The real bin against a Discord simulator whose gateway dispatches what Discord should never send: a MESSAGE_CREATE
// whose data is null, whose author is null or whose fields have the wrong types, a MESSAGE_UPDATE or MESSAGE_DELETE
// without ids. Each is skipped (one log line for them all); the process and the account stay up, and the next
// message is relayed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startDiscordSimulator } from "@switchboard/testkit";
import { suiteTeardown } from "./helpers.ts";
import { skippedLines, startInboundRun } from "./inbound-fixture.ts";

describe("discord inbound faults", () => {
  const teardown = suiteTeardown();

  it("survives malformed gateway dispatches and relays the next message", async () => {
    const discord = await startDiscordSimulator(teardown, { channels: ["general"] });
    const alice = discord.addUser("alice");
    const run = await startInboundRun(teardown, {
      account: `[discord.test]\nToken = "${discord.token}"\nServer = "${discord.guild.name}"\nApiURL = "${discord.apiUrl}"`,
      accountId: "discord.test",
      channel: "general",
    });
    alice.say("general", "before the faults");
    await run.waitForRelayed((m) => m.text === "before the faults", "the first message");

    const channel = discord.channel("general").id;
    const guild = discord.guild.id;
    const base = { id: "1300000000000000001", channel_id: channel, guild_id: guild, content: "bad", embeds: [] };
    discord.injectDispatch("MESSAGE_CREATE", null);
    discord.injectDispatch("MESSAGE_CREATE", { ...base, author: null });
    discord.injectDispatch("MESSAGE_CREATE", { ...base, id: "1300000000000000002", author: 7, attachments: "x" });
    discord.injectDispatch("MESSAGE_CREATE", { ...base, id: null, author: alice.member.user, mentions: "all" });
    discord.injectDispatch("MESSAGE_UPDATE", { channel_id: channel, guild_id: guild, content: 5 });
    discord.injectDispatch("MESSAGE_DELETE", { guild_id: guild });
    discord.injectDispatch("MESSAGE_DELETE_BULK", { ids: null, channel_id: channel, guild_id: guild });
    discord.injectDispatch("TYPING_START", { channel_id: channel, guild_id: guild, user_id: null });
    alice.say("general", "after the faults");

    await run.waitForRelayed((m) => m.text === "after the faults", "the message after the malformed dispatches");
    run.assertAlive();
    assert.ok(
      run.relayed().every((m) => m.text !== "bad"),
      "no malformed message relayed",
    );
    const lines = await skippedLines(run);
    assert.equal(lines.length, 1, `one rate-limited line for the burst:\n${lines.join("\n")}`);
    assert.match(lines[0] ?? "", /discord\.test/);
    assert.match(lines[0] ?? "", /a Discord gateway event/);
  });
});
