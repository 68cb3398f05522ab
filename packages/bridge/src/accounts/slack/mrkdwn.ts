// Slack's message text ("mrkdwn", api.slack.com/reference/surfaces/formatting) to and from what other platforms read.
// Inbound, as Matterbridge: `<@U123>` → @name, `<#C123|general>` → #general, `<!here>` → @here, `<url|label>` →
// [label](url), *bold* → **bold**, ~strike~ → ~~strike~~, and the three HTML entities Slack escapes undone.
// Outbound: &, < and > escaped (Slack reads them as markup), @name of a known user turned into a real mention, and
// **bold** / ~~strike~~ into Slack's single markers.

export interface SlackNames {
  user(id: string): string | undefined;
  channel(id: string): string | undefined;
}

// Labels never span a "<": a text full of unclosed tokens stays linear to scan.
const MENTION = /<@([A-Z0-9]+)(?:\|([^<>]*))?>/g;
const CHANNEL = /<#([A-Z0-9]+)(?:\|([^<>]*))?>/g;
const SPECIAL = /<!([^<>|]+)(?:\|@?([^<>]*))?>/g;
const LINK = /<((?:https?|mailto|ftp):[^<>|]+)(?:\|([^<>]+))?>/g;
const BOLD = /(^|[\s.;,(])\*(\S[^*\n]*?)\*(?=$|[\s.;,)!?:])/gm;
const STRIKE = /(^|[\s.;,(])~(\S[^~\n]*?)~(?=$|[\s.;,)!?:])/gm;

function link(url: string, label: string | undefined): string {
  if (url.startsWith("mailto:")) return label ?? url.slice("mailto:".length);
  // Slack's auto-links label a URL with itself, without the scheme.
  if (label === undefined || url.replace(/^\w+:\/\//, "") === label || url === label) return url;
  return `[${label}](${url})`;
}

/** A Slack message's text as other platforms should show it. */
export function readableText(text: string, names: SlackNames): string {
  return text
    .replace(MENTION, (_match, id: string, label?: string) => `@${names.user(id) ?? label ?? id}`)
    .replace(CHANNEL, (_match, id: string, label?: string) => `#${label || names.channel(id) || id}`)
    .replace(SPECIAL, (_match, name: string, label?: string) => {
      if (label) return name.startsWith("date") ? label : `@${label}`;
      return `@${name.replace(/^subteam\^/, "")}`;
    })
    .replace(LINK, (_match, url: string, label?: string) => link(url, label))
    .replace(BOLD, "$1**$2**")
    .replace(STRIKE, "$1~~$2~~")
    .replace(/&gt;/g, ">")
    .replace(/&lt;/g, "<")
    .replace(/&amp;/g, "&");
}

/** Text from elsewhere as Slack must receive it; `userId` finds a known user by name (without the @). */
export function slackText(text: string, userId: (name: string) => string | undefined): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\*\*(\S(?:[^*\n]*\S)?)\*\*/g, "*$1*")
    .replace(/~~(\S(?:[^~\n]*\S)?)~~/g, "~$1~")
    .replace(/(^|[\s(])@([\w-]+(?:\.[\w-]+)*)/g, (match, before: string, name: string) => {
      const id = userId(name);
      return id === undefined ? match : `${before}<@${id}>`;
    });
}
