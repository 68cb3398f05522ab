// A text fitted to a platform's limit per message, in the units the platform counts once it has escaped the text
// (Slack's `&lt;`, XML's `&amp;`, UTF-8 bytes...): split into at most `maxParts` messages, each led by the same
// prefix (the nick), cutting at a line break or a space in the last half of a part when there is one and never
// inside a surrogate pair; what still does not fit is clipped, ending with MessageClipped. Linear in the text.

export interface TextLimit {
  /** The most one message may measure, prefix included. */
  limit: number;
  /** What one UTF-16 code unit of the text costs once the platform has escaped it (1 when not given). */
  cost?: (code: number) => number;
}

export interface FitOptions {
  /** Repeated at the start of every part (and measured there). */
  prefix?: string;
  /** 1: clip only. */
  maxParts?: number;
  /** Ends a clipped part, after a space; "" clips without a marker. */
  clipped: string;
}

const unit = () => 1;

/** Bytes of UTF-8 per UTF-16 code unit: a surrogate pair is 4 bytes, 2 per half. */
export function utf8Cost(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return code >= 0xd800 && code <= 0xdfff ? 2 : 3;
}

export function measure(text: string, cost: (code: number) => number = unit): number {
  let total = 0;
  for (let index = 0; index < text.length; index++) total += cost(text.charCodeAt(index));
  return total;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

export function fitText(text: string, limit: TextLimit, options: FitOptions): string[] {
  const cost = limit.cost ?? unit;
  const prefix = options.prefix ?? "";
  // A prefix too long to leave half the limit for text gets that half anyway: a part must carry some text.
  const room = Math.max(limit.limit - measure(prefix, cost), Math.floor(limit.limit / 2));
  if (measure(text, cost) <= room) return [prefix + text];
  const maxParts = Math.max(1, options.maxParts ?? 1);
  const parts: string[] = [];
  let start = 0;
  while (parts.length < maxParts - 1 && start < text.length) {
    const end = cutWithin(text, start, room, cost, true);
    if (end >= text.length) break;
    parts.push(prefix + text.slice(start, end).trimEnd());
    start = end;
    while (start < text.length && (text[start] === " " || text[start] === "\n")) start++;
  }
  const rest = text.slice(start);
  if (measure(rest, cost) <= room) {
    parts.push(prefix + rest);
    return parts;
  }
  const wanted = options.clipped === "" ? "" : ` ${options.clipped}`;
  // A marker that alone would not fit is left out rather than break the limit.
  const marker = measure(wanted, cost) <= room ? wanted : "";
  const end = cutWithin(rest, 0, room - measure(marker, cost), cost, false);
  parts.push(prefix + rest.slice(0, end) + marker);
  return parts;
}

/**
 * The end of the longest slice from `start` that costs at most `budget`, never between the halves of a surrogate
 * pair; with `atBreak`, pulled back to just after the last line break (else space) in the slice's second half.
 */
function cutWithin(
  text: string,
  start: number,
  budget: number,
  cost: (code: number) => number,
  atBreak: boolean,
): number {
  let spent = 0;
  let index = start;
  let lastNewline = -1;
  let lastSpace = -1;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    const width = isHighSurrogate(code) && index + 1 < text.length ? 2 : 1;
    const step = width === 2 ? cost(code) + cost(text.charCodeAt(index + 1)) : cost(code);
    if (spent + step > budget) break;
    spent += step;
    index += width;
    if (code === 10) lastNewline = index;
    else if (code === 32) lastSpace = index;
  }
  if (!atBreak || index >= text.length) return index;
  const half = start + (index - start) / 2;
  if (lastNewline > half) return lastNewline;
  if (lastSpace > half) return lastSpace;
  // Not even one character fits (a budget smaller than one character's cost): take one, so the text advances.
  return index === start ? start + 1 : index;
}
