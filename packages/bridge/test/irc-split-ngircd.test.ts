// Split lines at Matterbridge's default MessageLength (400 bytes) go through a real ngIRCd unchanged.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { connectIrcUser, type NgircdServer, startNgircd, suiteTeardown } from "@switchboard/testkit";
import { DEFAULT_CLIPPED, splitMessage, utf8Length } from "../src/accounts/irc/split.ts";

const teardown = suiteTeardown();
let server: NgircdServer;
before(async () => {
  server = await startNgircd(teardown);
});

describe("splitMessage with ngIRCd", () => {
  it("every part of a long multi-byte message arrives whole, in order, with a long nick and channel", async (t) => {
    const channel = "#a-rather-long-channel-name-for-the-test";
    const sender = await connectIrcUser(t, {
      ...server,
      nick: "a_long_bridge_nickname_29chr",
      channels: [channel],
      messageMaxLength: 400, // irc-framework would split again at its own default of 350 bytes
    });
    const reader = await connectIrcUser(t, { ...server, nick: "reader", channels: [channel] });
    const text = `${"héllo wörld 👋 ".repeat(60)}\nsecond line`;
    const parts = splitMessage(text, 400, DEFAULT_CLIPPED);
    assert.ok(parts.length > 3);
    assert.ok(parts.every((part) => utf8Length(part) <= 400));
    for (const part of parts) sender.say(channel, part);
    await reader.waitForMessage(channel, "second line");
    const received = reader.events.items.flatMap((e) => (e.type === "privmsg" ? [e.text] : []));
    assert.deepEqual(received, parts);
  });
});
