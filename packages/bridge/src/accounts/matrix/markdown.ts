// A small Markdown-to-HTML conversion for formatted_body: the inline marks chat users type (code, bold, italic,
// strikethrough, links) and line breaks. Everything else is escaped text, so nothing a user types becomes markup.
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** Inline marks of one line of escaped text; code spans are kept away from the other marks. */
function inline(escaped: string): string {
  return escaped
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) return `<code>${part.slice(1, -1)}</code>`;
      return part
        .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[^\w*])\*(?=\S)(.+?)(?<=\S)\*(?!\w)/g, "$1<em>$2</em>")
        .replace(/(^|\W)_(?=\S)(.+?)(?<=\S)_(?!\w)/g, "$1<em>$2</em>")
        .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "<del>$1</del>")
        .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '<a href="$2">$1</a>');
    })
    .join("");
}

export function markdownToHtml(text: string): string {
  const blocks = text.split(/^```[^\n]*\n?/m);
  // Odd parts are inside ``` fences: kept verbatim (escaped) in <pre><code>.
  return blocks
    .map((block, index) =>
      index % 2 === 1
        ? `<pre><code>${escapeHtml(block.replace(/\n$/, ""))}</code></pre>`
        : block
            .split("\n")
            .map((line) => inline(escapeHtml(line)))
            .join("<br>"),
    )
    .join("");
}
