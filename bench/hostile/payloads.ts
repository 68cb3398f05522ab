// The hostile request bodies: each as large as the service's body limit allows, built to make parsing and validation
// as expensive as possible (deep nesting, many tiny values, wide objects, long strings), plus a normal request of the
// same route for comparison. Pure: builds Buffers, sends nothing.

export type Service = "gateway" | "bridge";

export interface HostileCase {
  service: Service;
  name: string;
  path: string;
  body: Buffer;
}

/** The gateway's default body_limit_bytes and the bridge's default BodyLimit. */
const BODY_LIMITS: Record<Service, number> = { gateway: 10 * 1024 * 1024, bridge: 1024 * 1024 };

/** Repeats `unit` so that prefix + units + suffix stays within `budget` bytes. */
export function fill(prefix: string, unit: string, suffix: string, budget: number): string {
  const count = Math.max(
    0,
    Math.floor((budget - Buffer.byteLength(prefix) - Buffer.byteLength(suffix)) / Buffer.byteLength(unit)),
  );
  return prefix + unit.repeat(count) + suffix;
}

/** Nesting `open` as deep as fits, closed by `close` (each level costs both). */
export function nested(
  prefix: string,
  open: string,
  inner: string,
  close: string,
  suffix: string,
  budget: number,
): string {
  const room = budget - Buffer.byteLength(prefix + inner + suffix);
  const depth = Math.max(0, Math.floor(room / Buffer.byteLength(open + close)));
  return prefix + open.repeat(depth) + inner + close.repeat(depth) + suffix;
}

/** An object with as many distinct keys as fit in `budget` bytes: {"k0":0,"k1":0,...}. */
export function wideObject(budget: number): string {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; ; i++) {
    const part = `"k${i}":0`;
    const added = part.length + (parts.length > 0 ? 1 : 0);
    if (size + added > budget) break;
    parts.push(part);
    size += added;
  }
  return `{${parts.join(",")}}`;
}

/** The model the bench's Anthropic simulator serves (a translated backend). */
export const ANTHROPIC_MODEL = "claude-bench";

const CHAT = '{"model":"bench-model","messages":[{"role":"user","content":"hi"}],"x":';

export function gatewayCases(limit = BODY_LIMITS.gateway): HostileCase[] {
  const budget = limit - 64;
  const chat = (name: string, text: string): HostileCase => ({
    service: "gateway",
    name,
    path: "/v1/chat/completions",
    body: Buffer.from(text),
  });
  return [
    chat("deep arrays", nested(CHAT, "[", "", "]", "}", budget)),
    chat("deep objects", nested(CHAT, '{"a":', "0", "}", "}", budget)),
    chat("many tiny values", fill(`${CHAT}[`, "0,", "0]}", budget)),
    chat("many empty objects", fill(`${CHAT}[`, "{},", "{}]}", budget)),
    chat("wide object", `${CHAT}${wideObject(budget - CHAT.length - 1)}}`),
    chat("long string", fill('{"model":"bench-model","messages":[{"role":"user","content":"', "x", '"}]}', budget)),
    // An inline image: no text to count against Claude's context, so the whole body is translated and re-encoded.
    chat(
      "image to anthropic",
      fill(
        `{"model":"${ANTHROPIC_MODEL}","messages":[{"role":"user","content":[{"type":"text","text":"what is it?"},` +
          '{"type":"image_url","image_url":{"url":"data:image/png;base64,',
        "A",
        '"}}]}]}',
        budget,
      ),
    ),
    // Words of 60,000 letters: byte-pair encoding is quadratic in a word's length (one took seconds to count).
    chat(
      "letter runs to anthropic",
      `{"model":"${ANTHROPIC_MODEL}","messages":[${Array.from({ length: 12 }, () => `{"role":"user","content":"${"x".repeat(60_000)}"}`).join(",")}]}`,
    ),
    chat(
      "escaped string",
      fill('{"model":"bench-model","messages":[{"role":"user","content":"', "\\n", '"}]}', budget),
    ),
    chat(
      "many messages",
      fill(
        '{"model":"bench-model","messages":[',
        '{"role":"user","content":"x"},',
        '{"role":"user","content":"x"}]}',
        budget,
      ),
    ),
    chat(
      "huge stop array",
      fill('{"model":"bench-model","messages":[{"role":"user","content":"hi"}],"stop":[', '"x",', '"x"]}', budget),
    ),
    {
      service: "gateway",
      name: "embeddings long input",
      path: "/v1/embeddings",
      body: Buffer.from(fill('{"model":"bench-model","input":"', "x", '"}', budget)),
    },
    {
      service: "gateway",
      name: "embeddings input array",
      path: "/v1/embeddings",
      body: Buffer.from(fill('{"model":"bench-model","input":[', '"x",', '"x"]}', budget)),
    },
  ];
}

const POST = '{"text":"hi","username":"bench","gateway":"bench"';

export function bridgeCases(limit = BODY_LIMITS.bridge): HostileCase[] {
  const budget = limit - 64;
  const post = (name: string, text: string): HostileCase => ({
    service: "bridge",
    name,
    path: "/api/message",
    body: Buffer.from(text),
  });
  return [
    post("deep arrays", nested(`${POST},"x":`, "[", "", "]", "}", budget)),
    post("deep objects", nested(`${POST},"x":`, '{"a":', "0", "}", "}", budget)),
    post("many tiny values", fill(`${POST},"x":[`, "0,", "0]}", budget)),
    post("wide object", `${POST},"x":${wideObject(budget - POST.length - 10)}}`),
    post(
      "40,000 Extra.file entries",
      `${POST},"Extra":{"file":[${Array.from({ length: 40_000 }, () => '{"Name":"f"}').join(",")}]}}`,
    ),
    post("long string", fill('{"username":"bench","gateway":"bench","text":"', "x", '"}', budget)),
  ];
}

/** What normal traffic sends to each service while the hostile requests run. */
export const NORMAL: Record<Service, { path: string; body: Buffer; health: string }> = {
  gateway: {
    path: "/v1/chat/completions",
    body: Buffer.from('{"model":"bench-model","messages":[{"role":"user","content":"Say hello"}]}'),
    health: "/health",
  },
  bridge: {
    path: "/api/message",
    body: Buffer.from('{"text":"hello","username":"bench","gateway":"bench"}'),
    health: "/api/health",
  },
};
