// Matterbridge's regexes are Go (RE2) syntax. The common differences with JavaScript are translated:
// a leading inline flag group like (?i) becomes a RegExp flag, and ${1} in replacements becomes $1.

/** Compiles a Go-style pattern; throws SyntaxError with the reason when JavaScript cannot compile it. */
export function compileGoRegex(pattern: string, global = false): RegExp {
  let source = pattern;
  let flags = global ? "gu" : "u";
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline?.[1]) {
    source = source.slice(inline[0].length);
    for (const flag of inline[1]) if (flag !== "U" && !flags.includes(flag)) flags += flag;
  }
  try {
    return new RegExp(source, flags);
  } catch {
    // Without the u flag JavaScript accepts more escapes (e.g. \- outside a class), as RE2 does.
    return new RegExp(source, flags.replace("u", ""));
  }
}

/** Go's ${1} / ${name} replacement references become JavaScript's $1 / $<name>. */
export function goReplacement(replacement: string): string {
  return replacement.replace(/\$\{(\d+)\}/g, "$$$1").replace(/\$\{([A-Za-z_]\w*)\}/g, "$$<$1>");
}

/** Matterbridge's IgnoreNicks / IgnoreMessages: whitespace-separated patterns. */
export function splitPatterns(value: string | undefined): string[] {
  return value ? value.split(/\s+/).filter((part) => part.length > 0) : [];
}
