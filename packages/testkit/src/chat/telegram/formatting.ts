// What the Bot API does with `parse_mode`: it parses the text into plain text plus entities (offsets and lengths in
// UTF-16 code units) and refuses malformed markup with 400 "Bad Request: can't parse entities: ...", as the real
// server does. A client that escapes wrongly is caught here exactly as it would be by Telegram. Covers the entity
// kinds a chat bridge produces: bold, italic, underline, strikethrough, spoiler, code, pre, text links, blockquotes.
import { badRequest } from "./bot-api-error.ts";

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export interface ParsedText {
  text: string;
  entities: MessageEntity[];
}

const cantParse = (why: string) => badRequest(`can't parse entities: ${why}`);
const byteOffset = (source: string, index: number) => Buffer.byteLength(source.slice(0, index));

/** Builds text and entities; `open` returns a handle `close` finishes. */
class Builder {
  text = "";
  readonly entities: MessageEntity[] = [];
  open(type: string, extra: Partial<MessageEntity> = {}): MessageEntity {
    const entity: MessageEntity = { type, offset: this.text.length, length: 0, ...extra };
    this.entities.push(entity);
    return entity;
  }
  close(entity: MessageEntity): void {
    entity.length = this.text.length - entity.offset;
  }
  result(): ParsedText {
    // Empty entities are dropped by the server; entities are listed by offset.
    const entities = this.entities.filter((e) => e.length > 0).sort((a, b) => a.offset - b.offset);
    return { text: this.text, entities };
  }
}

export function parseText(text: string, parseMode: string | undefined): ParsedText {
  const mode = (parseMode ?? "").toLowerCase();
  if (mode === "") return { text, entities: [] };
  if (mode === "html") return parseHtml(text);
  if (mode === "markdownv2") return parseMarkdownV2(text);
  if (mode === "markdown") return parseMarkdown(text);
  throw badRequest(`unsupported parse_mode`);
}

const HTML_TAGS: Record<string, string> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  code: "code",
  pre: "pre",
  a: "text_link",
  blockquote: "blockquote",
  span: "spoiler",
};

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

function decodeEntity(source: string, at: number): { text: string; end: number } | undefined {
  const match = /^&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/.exec(source.slice(at, at + 12));
  if (match === null) return undefined;
  const name = match[1] as string;
  let text: string | undefined;
  if (name.startsWith("#x")) text = String.fromCodePoint(Number.parseInt(name.slice(2), 16));
  else if (name.startsWith("#")) text = String.fromCodePoint(Number(name.slice(1)));
  else text = NAMED[name];
  return text === undefined ? undefined : { text, end: at + match[0].length };
}

function parseHtml(source: string): ParsedText {
  const out = new Builder();
  const stack: { tag: string; entity: MessageEntity | undefined }[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source[i] as string;
    if (char === "&") {
      const decoded = decodeEntity(source, i);
      // Unsupported entities stay as written.
      out.text += decoded?.text ?? "&";
      i = decoded?.end ?? i + 1;
      continue;
    }
    if (char !== "<") {
      out.text += char;
      i++;
      continue;
    }
    const end = source.indexOf(">", i);
    const at = byteOffset(source, i);
    if (source[i + 1] === "/") {
      if (end < 0) throw cantParse(`Unclosed end tag at byte offset ${at}`);
      const name = source
        .slice(i + 2, end)
        .trim()
        .toLowerCase();
      const top = stack.pop();
      if (top === undefined) throw cantParse(`Unexpected end tag at byte offset ${at}`);
      if (top.tag !== name) {
        throw cantParse(`Unmatched end tag at byte offset ${at}, expected "</${top.tag}>", found "</${name}>"`);
      }
      if (top.entity) out.close(top.entity);
      i = end + 1;
      continue;
    }
    const nameMatch = /^<([a-zA-Z][a-zA-Z0-9-]*)/.exec(source.slice(i));
    const name = nameMatch?.[1]?.toLowerCase() ?? "";
    const type = HTML_TAGS[name];
    if (type === undefined) throw cantParse(`Unsupported start tag "${name}" at byte offset ${at}`);
    if (end < 0) throw cantParse(`Unclosed start tag at byte offset ${at}`);
    const attributes = source.slice(i + 1 + name.length, end);
    const attribute = (key: string) =>
      new RegExp(`${key}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"']+))`, "i").exec(attributes) ?? undefined;
    let entity: MessageEntity | undefined;
    if (name === "a") {
      const href = attribute("href");
      const url = href ? (href[1] ?? href[2] ?? href[3] ?? "") : "";
      entity = url === "" ? undefined : out.open("text_link", { url: url.replaceAll("&amp;", "&") });
    } else if (name === "span") {
      const css = attribute("class");
      if ((css?.[1] ?? css?.[2] ?? css?.[3]) !== "tg-spoiler") {
        throw cantParse(`Tag "span" must have class "tg-spoiler" at byte offset ${at}`);
      }
      entity = out.open("spoiler");
    } else if (name === "code" && stack.at(-1)?.tag === "pre" && stack.at(-1)?.entity) {
      // <pre><code class="language-x"> is one pre entity with a language.
      const pre = stack.at(-1)?.entity as MessageEntity;
      const css = attribute("class");
      const language = (css?.[1] ?? css?.[2] ?? css?.[3] ?? "").replace(/^language-/, "");
      if (language !== "") pre.language = language;
      entity = undefined;
    } else {
      entity = out.open(type);
    }
    stack.push({ tag: name, entity });
    i = end + 1;
  }
  const open = stack.pop();
  if (open !== undefined) throw cantParse(`Can't find end tag corresponding to start tag "${open.tag}"`);
  return out.result();
}

const V2_RESERVED = new Set("_*[]()~`>#+-=|{}.!".split(""));
const V2_PAIRS: [string, string, string][] = [
  ["||", "spoiler", "Spoiler"],
  ["__", "underline", "Underline"],
  ["*", "bold", "Bold"],
  ["_", "italic", "Italic"],
  ["~", "strikethrough", "Strikethrough"],
];

function parseMarkdownV2(source: string): ParsedText {
  const out = new Builder();
  const open: { marker: string; entity: MessageEntity; name: string; at: number }[] = [];
  let i = 0;
  let lineStart = true;
  while (i < source.length) {
    const char = source[i] as string;
    if (char === "\\") {
      const next = source[i + 1];
      if (next !== undefined && next.charCodeAt(0) <= 126) {
        out.text += next;
        i += 2;
        lineStart = false;
        continue;
      }
    }
    if (char === ">" && lineStart) {
      // A quoted line: the ">" is markup, not text.
      const entity = out.open("blockquote");
      const lineEnd = source.indexOf("\n", i);
      const inner = parseMarkdownV2(source.slice(i + 1, lineEnd < 0 ? undefined : lineEnd));
      for (const e of inner.entities) out.entities.push({ ...e, offset: e.offset + out.text.length });
      out.text += inner.text;
      out.close(entity);
      i = lineEnd < 0 ? source.length : lineEnd;
      continue;
    }
    lineStart = char === "\n";
    if (char === "`") {
      const fence = source.startsWith("```", i);
      const marker = fence ? "```" : "`";
      let j = i + marker.length;
      let language = "";
      if (fence) {
        const newline = source.indexOf("\n", j);
        const firstLine = newline < 0 ? "" : source.slice(j, newline);
        if (newline >= 0 && /^[\w+-]*$/.test(firstLine)) {
          language = firstLine;
          j = newline + 1;
        }
      }
      const entity = out.open(fence ? "pre" : "code", language ? { language } : {});
      let closed = false;
      while (j < source.length) {
        if (source[j] === "\\" && (source[j + 1] === "`" || source[j + 1] === "\\")) {
          out.text += source[j + 1];
          j += 2;
          continue;
        }
        if (source.startsWith(marker, j)) {
          closed = true;
          break;
        }
        out.text += source[j];
        j++;
      }
      if (!closed) {
        throw cantParse(`Can't find end of ${fence ? "Pre" : "Code"} entity at byte offset ${byteOffset(source, i)}`);
      }
      out.close(entity);
      i = j + marker.length;
      continue;
    }
    if (char === "[") {
      const entity = out.open("text_link");
      open.push({ marker: "]", entity, name: "TextUrl", at: i });
      i++;
      continue;
    }
    if (char === "]" && open.at(-1)?.marker === "]") {
      const link = open.pop() as (typeof open)[number];
      if (source[i + 1] !== "(") {
        throw cantParse(`Can't find end of TextUrl entity at byte offset ${byteOffset(source, link.at)}`);
      }
      let close = i + 2;
      while (close < source.length && source[close] !== ")") close += source[close] === "\\" ? 2 : 1;
      if (close >= source.length) close = -1;
      if (close < 0) throw cantParse(`Can't find end of a URL at byte offset ${byteOffset(source, i + 1)}`);
      link.entity.url = source.slice(i + 2, close).replace(/\\([)\\])/g, "$1");
      out.close(link.entity);
      i = close + 1;
      continue;
    }
    const pair = V2_PAIRS.find(([marker]) => source.startsWith(marker, i));
    if (pair !== undefined) {
      const [marker, type, name] = pair;
      if (open.at(-1)?.marker === marker) {
        out.close((open.pop() as (typeof open)[number]).entity);
      } else {
        open.push({ marker, entity: out.open(type), name, at: i });
      }
      i += marker.length;
      continue;
    }
    if (V2_RESERVED.has(char)) {
      throw cantParse(`Character '${char}' is reserved and must be escaped with the preceding '\\'`);
    }
    out.text += char;
    i++;
  }
  const unclosed = open.pop();
  if (unclosed !== undefined) {
    throw cantParse(`Can't find end of ${unclosed.name} entity at byte offset ${byteOffset(source, unclosed.at)}`);
  }
  return out.result();
}

const LEGACY: Record<string, string> = { "*": "bold", _: "italic" };

function parseMarkdown(source: string): ParsedText {
  const out = new Builder();
  let i = 0;
  while (i < source.length) {
    const char = source[i] as string;
    if (char === "\\" && "_*`[".includes(source[i + 1] ?? " ")) {
      out.text += source[i + 1];
      i += 2;
      continue;
    }
    const type = LEGACY[char];
    const fence = source.startsWith("```", i);
    if (type !== undefined || char === "`") {
      const marker = fence ? "```" : char;
      const end = source.indexOf(marker, i + marker.length);
      if (end < 0) {
        throw cantParse(`Can't find end of the entity starting at byte offset ${byteOffset(source, i)}`);
      }
      const entity = out.open(type ?? (fence ? "pre" : "code"));
      out.text += source.slice(i + marker.length, end);
      out.close(entity);
      i = end + marker.length;
      continue;
    }
    if (char === "[") {
      const close = source.indexOf("]", i);
      const url = close < 0 ? -1 : source.indexOf(")", close);
      if (close < 0 || source[close + 1] !== "(" || url < 0) {
        throw cantParse(`Can't find end of the entity starting at byte offset ${byteOffset(source, i)}`);
      }
      const entity = out.open("text_link", { url: source.slice(close + 2, url) });
      out.text += source.slice(i + 1, close);
      out.close(entity);
      i = url + 1;
      continue;
    }
    out.text += char;
    i++;
  }
  return out.result();
}
