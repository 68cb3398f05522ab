// An IRC line (without its CRLF) as irc-framework's Client.rawString builds it from its parameters: the last one
// gets a ":" when it starts with one or holds white space. rawString copies its arguments into an array, filters
// it, matches a regular expression and joins: about twice the cost of this template, once per relayed message in a
// burst. test/irc-raw-line.test.ts holds the two equal.

const NEEDS_COLON = /^:|\s/;

/** `command target text`, with `prefix` (a tag such as "@reply-parent-msg-id=...") before them when given. */
export function rawIrcLine(command: string, target: string, text: string, prefix?: string): string {
  const last = NEEDS_COLON.test(text) ? `:${text}` : text;
  return prefix === undefined ? `${command} ${target} ${last}` : `${prefix} ${command} ${target} ${last}`;
}
