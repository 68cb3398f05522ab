// Defence in depth under the core's nick cleaning and the line splitting: whatever a caller passes (a nick, a
// channel, a RunCommand, a file name), no line the IRC client writes carries CR, LF or NUL inside it. CR and LF
// would end the line early and start a second command of the sender's choosing; NUL makes servers drop the rest.
import type { Client } from "irc-framework";

const LINE_BREAKING = /[\r\n\0]/;

function isSafeIrcLine(line: string): boolean {
  return !LINE_BREAKING.test(line);
}

/**
 * Makes the client's connection refuse (not write) any line holding CR, LF or NUL; `onRefused` hears the line's
 * command only (the rest may be anything a user wrote). A refused line counts as handled: it is never retried.
 */
export function refuseUnsafeLines(client: Client, onRefused: (command: string) => void): void {
  const connection = client.connection;
  const write = connection.write.bind(connection);
  connection.write = (line: string, callback?: (error?: Error | null) => void): boolean | undefined => {
    if (isSafeIrcLine(line)) return write(line, callback);
    onRefused(line.split(" ", 1)[0]?.slice(0, 32) ?? "");
    // Handled (refused and logged): a sender waiting on it goes on rather than retrying a line that can never go.
    if (callback) setImmediate(callback);
    return true;
  };
}
