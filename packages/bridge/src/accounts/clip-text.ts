// A text cut to a platform's limit, ending with MessageClipped, never between the two halves of a surrogate pair.

export function clipText(text: string, limit: number, clipped: string): string {
  if (text.length <= limit) return text;
  const marker = clipped === "" ? "" : ` ${clipped}`;
  let cut = Math.max(limit - marker.length, 0);
  if (/[\uD800-\uDBFF]/.test(text.charAt(cut - 1))) cut--;
  return `${text.slice(0, cut)}${marker}`;
}
