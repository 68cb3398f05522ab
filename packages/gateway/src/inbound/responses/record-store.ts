import { recordsUnavailable } from "../../request/errors.ts";
import type { StateStore } from "../../state/types.ts";
import { DEFAULT_RESPONSE_LIMITS, type ResponseStore, type StoredResponse } from "./store.ts";

type Records = Pick<StateStore, "putRecord" | "getRecord" | "deleteRecord">;

/**
 * Responses kept in the state store's records, so that every replica on one Redis finds the responses another one
 * made (previous_response_id, GET, DELETE). Bounded in age by the records' TTL; in count by Redis's own memory
 * policy. A store that does not answer is a 503 for reads, never a "not found".
 */
export class RecordResponseStore implements ResponseStore {
  constructor(
    private readonly records: Records,
    private readonly maxAgeSeconds = DEFAULT_RESPONSE_LIMITS.maxAgeSeconds,
  ) {}

  async get(id: string): Promise<StoredResponse | undefined> {
    const text = await this.records.getRecord("response", id).catch(() => {
      throw recordsUnavailable();
    });
    return text === undefined ? undefined : (JSON.parse(text) as StoredResponse);
  }

  put(id: string, stored: StoredResponse): Promise<void> {
    return this.records.putRecord("response", id, JSON.stringify(stored), this.maxAgeSeconds);
  }

  async delete(id: string): Promise<boolean> {
    const existed = (await this.get(id)) !== undefined;
    if (existed) {
      await this.records.deleteRecord("response", id).catch(() => {
        throw recordsUnavailable();
      });
    }
    return existed;
  }
}
