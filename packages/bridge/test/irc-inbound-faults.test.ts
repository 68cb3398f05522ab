// A misbehaving IRC server: lines irc-framework parses into events with missing nicks, channels or texts. Each is
// skipped (one rate-limited log line), the account and the process stay up, and the next message is relayed.
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import { describe, it } from "node:test";
import { suiteTeardown } from "./helpers.ts";
import { startInboundRun } from "./inbound-fixture.ts";

/** Lines a broken or hostile server might send once the bot is in #all. */
const MALFORMED = [
  ":server JOIN #all",
  "JOIN #all",
  ":x!u@h PRIVMSG",
  ":x!u@h PRIVMSG #all",
  "PRIVMSG #all :no prefix",
  ":x!u@h NOTICE",
  ":x!u@h PART",
  ":server KICK #all",
  ":x!u@h QUIT",
  ":server NICK",
  ":x!u@h NICK",
  ":x!u@h TOPIC",
  ":server TOPIC #all",
  ":server 353 bridgebot = #all",
  ":server 366",
  ":x!u@h PRIVMSG #all :\u0001ACTION",
  ":!@ PRIVMSG #all :empty prefix",
];

/** A minimal IRC server: welcomes the client, echoes its JOIN, then lets the test write lines to it. */
async function hostileIrcServer(teardown: { after(fn: () => void | Promise<void>): void }) {
  let client: Socket | undefined;
  let markJoined = () => {};
  const joined = new Promise<void>((resolve) => {
    markJoined = resolve;
  });
  const server = createServer((socket) => {
    client = socket;
    socket.setEncoding("utf8");
    let nick = "bridgebot";
    let buffer = "";
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (;;) {
        const end = buffer.indexOf("\r\n");
        if (end < 0) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const [command, ...params] = line.split(" ");
        if (command === "NICK") nick = params[0] ?? nick;
        if (command === "USER") socket.write(`:server 001 ${nick} :Welcome\r\n:server 376 ${nick} :End of MOTD\r\n`);
        if (command === "CAP") socket.write(`:server CAP * LS :\r\n`);
        if (command === "PING") socket.write(`:server PONG server :${params.join(" ").replace(/^:/, "")}\r\n`);
        if (command === "JOIN") {
          socket.write(`:${nick}!bot@host JOIN ${params[0]}\r\n:server 366 ${nick} ${params[0]} :End of NAMES\r\n`);
          markJoined();
        }
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  teardown.after(
    () =>
      new Promise<void>((resolve) => {
        client?.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { port, joined, send: (line: string) => client?.write(`${line}\r\n`) };
}

describe("irc account against malformed server events (real bin)", () => {
  const teardown = suiteTeardown();

  it("skips each with one log line and relays the next message", async () => {
    const server = await hostileIrcServer(teardown);
    const run = await startInboundRun(teardown, {
      account: `[irc.net]\nServer = "127.0.0.1:${server.port}"\nNick = "bridgebot"\nMessageDelay = 0`,
      accountId: "irc.net",
      channel: "#all",
    });
    await server.joined;
    for (const line of MALFORMED) server.send(line);
    server.send(":alice!a@host PRIVMSG #all :still here");
    const relayed = await run.waitForRelayed((m) => m.text === "still here", "the message after the bad lines");
    assert.equal(relayed.username, "alice");
    run.assertAlive();
    assert.ok(
      run.relayed().every((m) => m.text === "still here" || m.event === "join_leave" || m.event === "topic_change"),
      JSON.stringify(run.relayed()),
    );
  });
});
