// Defence in depth under the core's nick cleaning and the line splitting: whatever a caller passes (a nick, a
// channel, a RunCommand, a file name), no line the IRC client writes carries CR, LF or NUL inside it. CR and LF
// would end the line early and start a second command of the sender's choosing; NUL makes servers drop the rest.
import type { Client } from "irc-framework";

const LINE_BREAKING = /[\r\n\0]/;

export function isSafeIrcLine(line: string): boolean {
  return !LINE_BREAKING.test(line);
}

/** Told the command of a refused line, never the rest (it may be anything a user wrote). */
export type RefusedLine = (command: string) => void;

/** The command of a line, for the log: the first word, bounded. */
export function commandOf(line: string): string {
  return line.split(" ", 1)[0]?.slice(0, 32) ?? "";
}

/**
 * Makes the client's connection refuse (not write) any line holding CR, LF or NUL; `onRefused` hears the line's
 * command only (the rest may be anything a user wrote). A refused line counts as handled: it is never retried.
 */
export function refuseUnsafeLines(client: Client, onRefused: RefusedLine): void {
  const connection = client.connection;
  const write = connection.write.bind(connection);
  connection.write = (line: string, callback?: (error?: Error | null) => void): boolean | undefined => {
    if (isSafeIrcLine(line)) return write(line, callback);
    onRefused(commandOf(line));
    // Handled (refused and logged): a sender waiting on it goes on rather than retrying a line that can never go.
    if (callback) setImmediate(callback);
    return true;
  };
}
