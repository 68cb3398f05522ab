import type { ChatMessage } from "../../request/chat.ts";

/** A response kept for GET /v1/responses/{id} and for the requests that continue it (previous_response_id). */
export interface StoredResponse {
  /** The response object as the client received it. */
  response: Record<string, unknown>;
  /** The conversation up to and including this response's output (without its instructions, which do not carry over). */
  history: ChatMessage[];
}

/**
 * Where responses are kept. Bounded in count and in age; the in-memory one is the default, and the shape matches the
 * state store's records (get/put/delete by id), which can back it for several replicas.
 */
export interface ResponseStore {
  get(id: string): Promise<StoredResponse | undefined>;
  put(id: string, stored: StoredResponse): Promise<void>;
  delete(id: string): Promise<boolean>;
}

export interface ResponseLimits {
  maxCount: number;
  maxAgeSeconds: number;
}

/** Defaults: the last 1,000 responses, for a day. */
export const DEFAULT_RESPONSE_LIMITS: ResponseLimits = { maxCount: 1_000, maxAgeSeconds: 24 * 3600 };

/** One process's responses: the oldest leave first when the count is reached, any leaves once too old. */
export class MemoryResponseStore implements ResponseStore {
  /** Insertion order is age order. */
  readonly #entries = new Map<string, { stored: StoredResponse; expiresAt: number }>();

  constructor(
    private readonly limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    this.#expire();
    return this.#entries.get(id)?.stored;
  }

  async put(id: string, stored: StoredResponse): Promise<void> {
    this.#entries.delete(id);
    this.#entries.set(id, { stored, expiresAt: this.now() + this.limits.maxAgeSeconds * 1000 });
    while (this.#entries.size > this.limits.maxCount) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#expire();
  }

  async delete(id: string): Promise<boolean> {
    return this.#entries.delete(id);
  }

  #expire(): void {
    const now = this.now();
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt > now) break;
      this.#entries.delete(id);
    }
  }
}
