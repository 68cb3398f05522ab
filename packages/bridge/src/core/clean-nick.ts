// A nick comes from another community and is shown on every platform, in IRC inside a protocol line: it is made
// one plain line once, in the core, before RemoteNickFormat. Line breaks become spaces (a display name on two lines
// stays readable); every other control character (C0, DEL, C1, the Unicode line and paragraph separators, the bidi
// overrides that make a name read as another) is removed; the result is bounded in length.

/** Longest nick relayed, in code points (Discord's webhook names stop at 80, Slack's at 80, IRC nicks far sooner). */
export const MAX_NICK_CODE_POINTS = 64;

const LINE_BREAKS = /[\r\n\v\f\u0085\u2028\u2029]+/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
const INVISIBLE_CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const TAB = /\t/g;
const SPACE_RUNS = / {2,}/g;
/** Any character one of the replacements above would change (the line breaks and the tab are controls too). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
const ANY_CHANGED = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export function cleanNick(nick: string): string {
  // The usual nick (short, plain) is returned as it is: one test instead of three replacements.
  if (nick.length <= MAX_NICK_CODE_POINTS && !ANY_CHANGED.test(nick)) return nick;
  return cleanAnyNick(nick);
}

/** cleanNick without its shortcut for the usual nick (exported for the test that holds the two equal). */
export function cleanAnyNick(nick: string): string {
  let clean = nick.replace(LINE_BREAKS, " ").replace(TAB, " ").replace(INVISIBLE_CONTROLS, "");
  if (clean !== nick) clean = clean.replace(SPACE_RUNS, " ").trim();
  if (clean.length <= MAX_NICK_CODE_POINTS) return clean;
  const points = Array.from(clean);
  return points.length <= MAX_NICK_CODE_POINTS ? clean : `${points.slice(0, MAX_NICK_CODE_POINTS - 1).join("")}…`;
}
