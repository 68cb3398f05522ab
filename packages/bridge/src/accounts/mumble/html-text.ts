// Mumble text messages are HTML: Mumble's client sends and shows every message as HTML (a bot's plain text too, which
// reads the same once decoded). In: HTML to the plain text other platforms show. Out: plain text escaped, line
// breaks as <br>, and what that costs against the server's limit, which murmurd counts in UTF-16 units of the HTML.

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntity(entity: string, name: string): string {
  if (name.startsWith("#")) {
    const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : entity;
  }
  return ENTITIES[name.toLowerCase()] ?? entity;
}

const BLOCK_END = /<\/(p|div|li|tr|h[1-6]|blockquote|pre)\s*>/gi;
const LINE_BREAK = /<br\s*\/?>/gi;
/** A link whose text differs from its address keeps both: "text (address)". */
const LINK = /<a\s[^>]*?href\s*=\s*("([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a\s*>/gi;
const IMAGE = /<img\s[^>]*>/gi;
const TAG = /<\/?[a-zA-Z][^>]*>|<!--[\s\S]*?-->/g;
const HEAD = /<(head|style|script)[\s>][\s\S]*?<\/\1\s*>/gi;

/** A message without any tag (a bot's plain text) keeps its line breaks; in markup they are only spaces. */
const HAS_TAG = /<[a-zA-Z!/]/;

/** The plain text of a Mumble message: tags dropped, breaks kept as line breaks, entities decoded, images named. */
export function htmlToText(html: string): string {
  const text = html
    .replace(HEAD, "")
    .replace(/\r?\n/g, HAS_TAG.test(html) ? " " : "\n")
    .replace(LINE_BREAK, "\n")
    .replace(BLOCK_END, "\n")
    .replace(IMAGE, "[image]")
    .replace(LINK, (_whole, _quoted, double: string | undefined, single: string | undefined, inner: string) => {
      const address = double ?? single ?? "";
      const label = inner.replace(TAG, "").trim();
      return label === "" || label === address ? address : `${label} (${address})`;
    })
    .replace(TAG, "")
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, decodeEntity);
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Plain text as Mumble HTML: &, < and > escaped, line breaks as <br>. */
export function textToHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r?\n/g, "<br>");
}

/** What one UTF-16 unit of plain text costs once textToHtml has escaped it. */
export function htmlCost(code: number): number {
  if (code === 0x26) return 5; // &amp;
  if (code === 0x3c || code === 0x3e) return 4; // &lt; &gt;
  if (code === 0x0a) return 4; // <br>
  return 1;
}
