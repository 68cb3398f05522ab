// The discord account's pure text rules: splitting and clipping at Discord's 2000 characters, @name to mentions,
// readable mentions and emoji from Discord, /me as underscores, and webhook names Discord accepts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { webhookUsername } from "../src/accounts/discord/discord-connection.ts";
import { asAction, memberMessages, readableContent } from "../src/accounts/discord/inbound.ts";
import { replaceMentions, splitMessage } from "../src/accounts/discord/outbound.ts";

describe("discord text", () => {
  it("splits at a space into at most MessageSplitMaxCount parts, each with the prefix, and clips the rest", () => {
    const text = "word ".repeat(1000).trim(); // 4999 characters
    const parts = splitMessage(text, "<bob> ", 2, "<clipped message>");
    assert.equal(parts.length, 2);
    for (const part of parts) {
      assert.ok(part.startsWith("<bob> "));
      assert.ok(part.length <= 2000, String(part.length));
    }
    assert.ok(parts[0]?.endsWith("word"));
    assert.ok(parts[1]?.endsWith(" <clipped message>"));
    assert.deepEqual(splitMessage("short", "<bob> ", 3, "x"), ["<bob> short"]);
  });

  it("never cuts a surrogate pair", () => {
    const parts = splitMessage("😀".repeat(1500), "", 3, "");
    assert.equal(parts.join(""), "😀".repeat(1500));
  });

  it("turns @name of a known member into a mention and leaves other @words", () => {
    const ids: Record<string, string> = { alice: "1", "Bob B": "2" };
    assert.equal(
      replaceMentions("hi @alice, mail me@example.org or @nobody", (name) => ids[name]),
      "hi <@1>, mail me@example.org or @nobody",
    );
  });

  it("makes mentions and custom emoji readable, and reads /me", () => {
    const names = { user: () => "alice", role: () => "mods", channel: () => "general" };
    assert.equal(
      readableContent("<@1> <@!1> <@&2> <#3> <:party:4> <a:dance:5>", names),
      "@alice @alice @mods #general :party: :dance:",
    );
    assert.deepEqual(asAction("_waves_"), { text: "waves", action: true });
    assert.deepEqual(asAction("__bold__"), { text: "__bold__", action: false });
  });

  it("keeps webhook names within Discord's rules", () => {
    assert.equal(webhookUsername("alice (discord)"), "alice (disc\u200bord)");
    assert.equal(webhookUsername("Clyde"), "Cl\u200byde");
    assert.equal(webhookUsername("  "), "unknown");
    assert.equal(webhookUsername("x".repeat(100)).length, 80);
  });
});

describe("memberMessages (server joins and leaves)", () => {
  it("one message per gateway the account relays from, with its first channel there", () => {
    const memberships = [
      { gateway: "a", channel: "general", direction: "inout" },
      { gateway: "a", channel: "random", direction: "in" },
      { gateway: "b", channel: "news", direction: "out" },
      { gateway: "c", channel: "random", direction: "in" },
    ];
    const messages = memberMessages("Carol", false, memberships);
    assert.deepEqual(
      messages.map((m) => [m.gateway, m.channel, m.text, m.username, m.event]),
      [
        ["a", "general", "Carol leaves", "system", "join_leave"],
        ["c", "random", "Carol leaves", "system", "join_leave"],
      ],
    );
    assert.equal(memberMessages("Carol", true, memberships)[0]?.text, "Carol joins");
  });
});
