// Teams message bodies are HTML; other platforms read Markdown-ish text. In: mentions (<at>) become @name, links
// [label](url), bold/italic/strike/code their Markdown, block ends line breaks, other tags dropped, entities decoded.
// Out: everything escaped (a relayed "<b>" shows as typed), line breaks as <br>.

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const INLINE: Record<string, string> = {
  b: "**",
  strong: "**",
  i: "_",
  em: "_",
  s: "~~",
  strike: "~~",
  del: "~~",
  code: "`",
};
const BREAKS = /^(br|p|div|li|tr|h[1-6]|blockquote|pre)$/;

export function htmlToText(html: string): string {
  let text = html
    .replace(/<at\b[^>]*>([\s\S]*?)<\/at>/gi, (_m, name: string) => `@${name}`)
    .replace(/<a\b[^>]*\bhref\s*=\s*"([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, label: string) => {
      const shown = label.replace(/<[^>]*>/g, "");
      return decodeEntities(shown) === decodeEntities(href) ? href : `[${shown}](${href})`;
    })
    .replace(/<(\/?)([a-z][a-z0-9]*)\b[^>]*>/gi, (_m, closing: string, tag: string) => {
      const name = tag.toLowerCase();
      if (INLINE[name] !== undefined) return INLINE[name];
      if (name === "br" || (closing === "/" && BREAKS.test(name))) return "\n";
      if (name === "li" && closing === "") return "- ";
      return "";
    })
    // A "<" left before a letter was not a tag ("<" in Teams' text arrives as &lt;): dropped, whole runs at once, so
    // that removing a tag cannot join a stray "<" and what followed the tag into a new one ("<<p>b>" is "b>").
    .replace(/<+(?=\/?[a-z])/gi, "");
  text = decodeEntities(text);
  return text.replace(/\n{3,}/g, "\n\n").trim();
}

/** What one UTF-16 code unit of text costs in bytes once escaped by textToHtml. */
export function htmlCost(code: number): number {
  switch (code) {
    case 38: // &amp;
      return 5;
    case 60: // &lt;
    case 62: // &gt;
    case 10: // <br>
      return 4;
    case 34: // &quot;
      return 6;
    default:
      if (code < 0x80) return 1;
      if (code < 0x800) return 2;
      return code >= 0xd800 && code <= 0xdfff ? 2 : 3;
  }
}

export function textToHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replace(/\r?\n/g, "<br>");
}
