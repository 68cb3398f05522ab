import type { QualityTracker } from "../routing/quality.ts";
import type { EventBus } from "./events.ts";

/**
 * Feeds quality tracking from the event stream: a backend fault counts against the backend for that model, an answer
 * (client-fault 4xx included: the backend worked) counts for it, and what says nothing about the backend (the client
 * left, a 429 "busy") only ends a half-open trial without a verdict.
 */
export function feedQuality(events: EventBus, tracker: QualityTracker): void {
  events.on("attempt_finished", (event) => {
    const verdict = event.outcome === "client_abort" ? undefined : true;
    tracker.record(event.backend, event.model, verdict, event.endpoint === "chat" ? event.ttftMs : undefined);
  });
  events.on("attempt_failed", (event) => {
    tracker.record(event.backend, event.model, event.backendFault ? false : undefined, undefined);
  });
}
