import type { NativeUsageReader } from "../native-usage-tap.ts";
import { parsedOrUndefined } from "../native-usage-tap.ts";
import type { SseEvent } from "../sse-events.ts";
import type { TokenUsage } from "../usage.ts";
import { usageOf } from "./response.ts";
import type { GeminiResponse, GeminiUsage } from "./types.ts";

/**
 * Where Gemini's generateContent answers carry their usage (a google backend's answers to the gateway's Gemini API,
 * passed on as written: thoughts and their signatures, grounding, whatever comes next): usageMetadata in each
 * response, complete in the last one, whether the answer is one response, a stream of them, or a JSON array of them.
 */
export class GeminiUsageReader implements NativeUsageReader {
  #latest: GeminiUsage | undefined;

  event(event: SseEvent): void {
    if (!event.data.includes('"usageMetadata"')) return;
    this.#take(parsedOrUndefined<GeminiResponse | null>(event.data));
  }

  whole(body: Buffer): void {
    const answer = parsedOrUndefined<GeminiResponse | GeminiResponse[] | null>(body.toString("utf8"));
    if (Array.isArray(answer)) for (const response of answer) this.#take(response);
    else this.#take(answer);
  }

  usage(): TokenUsage | undefined {
    return this.#latest === undefined ? undefined : usageOf(this.#latest);
  }

  #take(response: GeminiResponse | null | undefined): void {
    const usage = response?.usageMetadata;
    if (usage && typeof usage === "object") this.#latest = usage;
  }
}
