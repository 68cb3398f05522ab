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

const FENCE = "```";
/** A language name alone on the opening fence's line ("```ts"), dropped as chat clients do. */
const INFO_LINE = /^[\w+#.-]+\n/;

/**
 * Text between ``` pairs is code (a block, wherever the fences are: chat users write "```ls -la``` is the command" on
 * one line); everything around them stays text. A ``` left without its pair is text too, so nothing is ever lost.
 */
export function markdownToHtml(text: string): string {
  const pieces = text.split(FENCE);
  if (pieces.length % 2 === 0) {
    const unpaired = pieces.pop() as string;
    pieces[pieces.length - 1] += FENCE + unpaired;
  }
  const last = pieces.length - 1;
  return pieces
    .map((piece, index) => {
      if (index % 2 === 1) return codeBlock(piece);
      // A block is on lines of its own: the line breaks that only touch it are not shown as <br>.
      let prose = index > 0 && piece.startsWith("\n") ? piece.slice(1) : piece;
      if (index < last && prose.endsWith("\n")) prose = prose.slice(0, -1);
      return prose === ""
        ? ""
        : prose
            .split("\n")
            .map((line) => inline(escapeHtml(line)))
            .join("<br>");
    })
    .join("");
}

function codeBlock(code: string): string {
  const body = code.replace(INFO_LINE, "").replace(/^\n/, "").replace(/\n$/, "");
  return `<pre><code>${escapeHtml(body)}</code></pre>`;
}
