// irc-framework's own command handlers assume well-formed lines: a PRIVMSG without its text, a JOIN without a prefix
// throw inside its socket handler, and the throw would end the process. Every parsed line is dispatched under a
// guard instead: a line it cannot handle is skipped and reported, and the next line is read as usual.
import type { Client } from "irc-framework";

/** Parameters each relayed command must have (RFC 2812); fewer, and irc-framework would fill in the wrong ones. */
const REQUIRED_PARAMS: Readonly<Record<string, number>> = {
  PRIVMSG: 2,
  NOTICE: 2,
  JOIN: 1,
  PART: 1,
  KICK: 2,
  TOPIC: 2,
  NICK: 1,
};

interface ParsedLine {
  command?: unknown;
  params?: unknown;
}

export function guardCommands(client: Client, onMalformed: (line: unknown, error: unknown) => void): void {
  const handler = client.command_handler;
  const dispatch = handler.dispatch.bind(handler);
  handler.dispatch = (message) => {
    const { command, params } = (message ?? {}) as ParsedLine;
    const required = typeof command === "string" ? REQUIRED_PARAMS[command.toUpperCase()] : undefined;
    if (required !== undefined && (!Array.isArray(params) || params.length < required)) {
      onMalformed(message, `${command} needs ${required} parameter${required === 1 ? "" : "s"}`);
      return;
    }
    try {
      dispatch(message);
    } catch (error) {
      onMalformed(message, error);
    }
  };
}
