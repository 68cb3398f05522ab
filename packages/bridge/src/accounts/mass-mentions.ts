// A relayed message never pings a whole channel by default: people in one community cannot notify everyone in
// another (Matterbridge lets them). The mass mentions a platform reads from plain text (`@all`, `@channel`,
// `@here` on Mattermost, `@room` on Matrix) get a zero-width joiner after the `@`: they still read the same, but
// no longer match. Each such account has AllowMassMentions to let them through.

/** The key every account with text mass mentions offers. */
export const ALLOW_MASS_MENTIONS_DESCRIPTION =
  "let relayed text notify a whole channel (mass mentions such as @all); off: they are shown but do not notify";

const ZERO_WIDTH_JOINER = "\u200d";

/** `@word` for each word, after the start or a character that cannot be part of a name, not followed by one. */
export function massMentionPattern(words: readonly string[]): RegExp {
  return new RegExp(`(^|[^\\w@.-])@(${words.join("|")})(?![\\w-])`, "giu");
}

export function neutraliseMassMentions(text: string, pattern: RegExp): string {
  if (!text.includes("@")) return text;
  return text.replace(pattern, (_match, before: string, word: string) => `${before}@${ZERO_WIDTH_JOINER}${word}`);
}

export const MATTERMOST_MASS_MENTIONS = massMentionPattern(["all", "channel", "here"]);
export const MATRIX_MASS_MENTIONS = massMentionPattern(["room"]);
