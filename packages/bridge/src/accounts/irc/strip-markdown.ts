// StripMarkdown: Markdown from other protocols as plain IRC text. Deliberately simple and safe: it only removes
// markup it is sure of, never text, and leaves anything ambiguous (snake_case, 2*3*4, a lone `*`) as it is.
// Unlike Matterbridge (go-strip-markdown), a link keeps its URL: "[text](url)" becomes "text (url)".

const rules: [RegExp, string | ((...groups: string[]) => string)][] = [
  // Fenced code block markers (the code stays).
  [/^ {0,3}(```|~~~)[^\n]*$/gm, ""],
  // Images and links.
  [/!\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"[^"\n]*")?\)/g, (_, alt, url) => (alt ? `${alt} (${url})` : url)],
  [/\[([^\]\n]+)\]\(([^)\s]+)(?:\s+"[^"\n]*")?\)/g, (_, text, url) => (text === url ? url : `${text} (${url})`)],
  // Autolinks.
  [/<((?:https?|ftp|mailto):[^>\s]+)>/g, "$1"],
  // Headings and block quotes at the start of a line.
  [/^ {0,3}#{1,6}\s+/gm, ""],
  [/^ {0,3}>\s?/gm, ""],
  // Inline code.
  [/`([^`\n]+)`/g, "$1"],
  // Bold, italic, strikethrough: only around non-space text, and for _ only at word edges.
  [/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, "$2"],
  [/~~(?=\S)([^\n]*?\S)~~/g, "$1"],
  [/(^|[^\w*])\*(?=[^\s*])([^\n*]*?[^\s*])\*(?![\w*])/g, "$1$2"],
  [/(^|[^\w])_(?=[^\s_])([^\n_]*?[^\s_])_(?!\w)/g, "$1$2"],
];

export function stripMarkdown(text: string): string {
  let result = text;
  for (const [pattern, replacement] of rules) {
    result = result.replace(pattern, replacement as string);
  }
  return result;
}
