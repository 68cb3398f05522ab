// Text from other platforms, rendered for Telegram's parse modes. Bridged text is plain text that often carries
// Markdown (Slack, Discord, Mattermost and Matrix users write it): the common spans (```pre```, `code`, **bold**,
// *italic*, _italic_, ~~strike~~, [text](url)) become Telegram formatting, and everything else is escaped so
// Telegram shows it as written. Matterbridge sent MarkdownV2 unescaped, so a plain "1.5" was refused by Telegram.

type Span =
  | { kind: "text"; text: string }
  | { kind: "pre"; text: string; language: string }
  | { kind: "code" | "bold" | "italic" | "strike"; text: string }
  | { kind: "link"; text: string; url: string };

const SPANS =
  /```([\w+-]*\n)?([\s\S]*?)```|`([^`\n]+)`|\*\*(?=\S)([\s\S]*?\S)\*\*|~~(?=\S)([\s\S]*?\S)~~|(?<![\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])|(?<![\w\\])_(?=[^\s_])([^_\n]*?[^\s_])_(?!\w)|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

function markdownSpans(text: string): Span[] {
  const spans: Span[] = [];
  let last = 0;
  for (const match of text.matchAll(SPANS)) {
    const index = match.index ?? 0;
    if (index > last) spans.push({ kind: "text", text: text.slice(last, index) });
    const [, language, pre, code, bold, strike, star, underscore, label, url] = match;
    if (pre !== undefined) spans.push({ kind: "pre", text: pre, language: (language ?? "").trim() });
    else if (code !== undefined) spans.push({ kind: "code", text: code });
    else if (bold !== undefined) spans.push({ kind: "bold", text: bold });
    else if (strike !== undefined) spans.push({ kind: "strike", text: strike });
    else if (star !== undefined || underscore !== undefined)
      spans.push({ kind: "italic", text: star ?? underscore ?? "" });
    else if (label !== undefined && url !== undefined) spans.push({ kind: "link", text: label, url });
    last = index + match[0].length;
  }
  if (last < text.length) spans.push({ kind: "text", text: text.slice(last) });
  return spans;
}

export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

const HTML_TAG = { bold: "b", italic: "i", strike: "s", code: "code" } as const;

export function markdownToHtml(text: string): string {
  return markdownSpans(text)
    .map((span) => {
      switch (span.kind) {
        case "text":
          return escapeHtml(span.text);
        case "pre":
          return span.language
            ? `<pre><code class="language-${escapeHtml(span.language)}">${escapeHtml(span.text)}</code></pre>`
            : `<pre>${escapeHtml(span.text)}</pre>`;
        case "link":
          return `<a href="${escapeHtml(span.url)}">${escapeHtml(span.text)}</a>`;
        default: {
          const tag = HTML_TAG[span.kind];
          return `<${tag}>${escapeHtml(span.text)}</${tag}>`;
        }
      }
    })
    .join("");
}

/** Every character MarkdownV2 reserves, escaped: the text shows as written. */
export function escapeMarkdownV2(text: string): string {
  return text.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, "\\$&");
}

const escapeCode = (text: string) => text.replace(/[`\\]/g, "\\$&");
const V2_MARK = { bold: "*", italic: "_", strike: "~" } as const;

export function markdownToMarkdownV2(text: string): string {
  return markdownSpans(text)
    .map((span) => {
      switch (span.kind) {
        case "text":
          return escapeMarkdownV2(span.text);
        case "pre":
          return `\`\`\`${span.language}\n${escapeCode(span.text)}\`\`\``;
        case "code":
          return `\`${escapeCode(span.text)}\``;
        case "link":
          return `[${escapeMarkdownV2(span.text)}](${span.url.replace(/[)\\]/g, "\\$&")})`;
        default: {
          const mark = V2_MARK[span.kind];
          return `${mark}${escapeMarkdownV2(span.text)}${mark}`;
        }
      }
    })
    .join("");
}
