// RemoteNickFormat: the template is split once at start-up; formatting is a concatenation, so placeholders that
// appear inside a user's nick are never expanded (Matterbridge expands them: issue #336).

const PLACEHOLDERS = ["NICK", "NOPINGNICK", "PROTOCOL", "BRIDGE", "GATEWAY", "LABEL", "CHANNEL", "USERID"] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
export type NickValues = Record<Placeholder, string>;

/** Literal text and placeholders in template order. */
export type NickFormat = readonly (string | { placeholder: Placeholder })[];

const TOKEN = new RegExp(`\\{(${PLACEHOLDERS.join("|")})\\}`, "g");

export function compileNickFormat(template: string): NickFormat {
  const parts: (string | { placeholder: Placeholder })[] = [];
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    if (match.index > last) parts.push(template.slice(last, match.index));
    parts.push({ placeholder: match[1] as Placeholder });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

/** The nick with a zero-width space after its first character, so it does not ping the user. */
function noPingNick(nick: string): string {
  const first = nick.codePointAt(0);
  if (first === undefined) return nick;
  const width = first > 0xffff ? 2 : 1;
  return `${nick.slice(0, width)}\u200b${nick.slice(width)}`;
}

export function formatNick(format: NickFormat, values: Omit<NickValues, "NOPINGNICK">): string {
  let out = "";
  for (const part of format) {
    if (typeof part === "string") out += part;
    else if (part.placeholder === "NOPINGNICK") out += noPingNick(values.NICK);
    else out += values[part.placeholder];
  }
  return out;
}
