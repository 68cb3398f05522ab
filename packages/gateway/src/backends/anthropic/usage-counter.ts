import type { TokenUsage } from "../usage.ts";
import { usageOf } from "./response.ts";
import type { AnthropicUsage } from "./types.ts";

/**
 * The usage a streamed Anthropic message reports: message_start's counts, then message_delta's, which are cumulative
 * (newer API versions repeat the input and cache counts there too).
 */
export class AnthropicUsageCounter {
  #usage: AnthropicUsage | undefined;

  /** message_start's `message.usage`. */
  started(usage: AnthropicUsage | undefined): void {
    this.#usage = { ...usage };
  }

  /** message_delta's `usage`. */
  updated(usage: AnthropicUsage | undefined): void {
    if (usage) this.#usage = { ...this.#usage, ...definedOnly(usage) };
  }

  /** The counts so far: the raw ones, and undefined when the stream reported none. */
  get raw(): AnthropicUsage | undefined {
    return this.#usage;
  }

  usage(): TokenUsage | undefined {
    return this.#usage ? usageOf(this.#usage) : undefined;
  }
}

function definedOnly(usage: AnthropicUsage): AnthropicUsage {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage)) if (typeof value === "number") out[key] = value;
  return out;
}
