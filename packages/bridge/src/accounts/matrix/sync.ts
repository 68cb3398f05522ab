// The filter the account syncs with (event-shape.ts reads the answers): room timelines and member state only (no
// presence, receipts, typing or account data), all of the room members (no lazy loading: names are resolved from
// them), and a timeline long enough to catch up after a reconnect.

/** Events per room per sync; more after an outage mark the timeline `limited` (the rest is skipped). */
const CATCH_UP_LIMIT = 100;

export function syncFilter(history: boolean): string {
  return JSON.stringify({
    presence: { not_types: ["*"] },
    account_data: { not_types: ["*"] },
    room: {
      // The first sync is history, never relayed: one event per room is enough.
      timeline: { limit: history ? 1 : CATCH_UP_LIMIT },
      state: { types: ["m.room.member"], lazy_load_members: false },
      ephemeral: { not_types: ["*"] },
      account_data: { not_types: ["*"] },
    },
  });
}
