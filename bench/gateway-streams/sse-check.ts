// What a slow stream carries and how a client checks it: 20 chat.completion.chunk events in order, then [DONE].

export const STREAM_CHUNKS = 20;
const MODEL = "bench-model";

/** The delta's text of chunk i (the first chunk carries the role and no text, as OpenAI's do). */
const contentOf = (i: number) => (i === 0 ? "" : `token${i} `);

/** Chunk i as JSON text, in OpenAI's chat.completion.chunk format. */
export function expectedChunk(i: number): string {
  const delta = i === 0 ? { role: "assistant", content: "" } : { content: contentOf(i) };
  return JSON.stringify({
    id: "chatcmpl-slow",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: MODEL,
    system_fingerprint: "fp_bench",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: i === STREAM_CHUNKS - 1 ? "stop" : null }],
  });
}

/**
 * Why a stream's decoded body is not the 20 chunks in order followed by [DONE] (whatever the events' framing: LF or
 * CRLF, comments and blank lines between them), or undefined when it is.
 */
export function streamProblem(body: string): string | undefined {
  const data = body
    .replace(/\r\n?/g, "\n")
    .split("\n\n")
    .map((event) => event.trim())
    .filter((event) => event !== "" && !event.startsWith(":"));
  if (data.length !== STREAM_CHUNKS + 1) return `${data.length} events, expected ${STREAM_CHUNKS + 1}`;
  for (let i = 0; i < STREAM_CHUNKS; i++) {
    const event = data[i]!;
    if (!event.startsWith("data:")) return `event ${i} is not a data event: ${event.slice(0, 80)}`;
    let chunk: { object?: unknown; choices?: { delta?: { content?: unknown } }[] };
    try {
      chunk = JSON.parse(event.slice(5));
    } catch {
      return `event ${i} is not JSON: ${event.slice(0, 80)}`;
    }
    if (chunk.object !== "chat.completion.chunk") return `event ${i} is not a chat.completion.chunk`;
    const content = chunk.choices?.[0]?.delta?.content;
    if (content !== contentOf(i)) return `event ${i} carries ${JSON.stringify(content)}, expected chunk ${i}`;
  }
  if (data[STREAM_CHUNKS]!.replace(/^data:\s*/, "") !== "[DONE]") return "the stream does not end with [DONE]";
  return undefined;
}
