import type { onRequestHookHandler } from "fastify";
import type { FirstRound } from "../fleet/first-round.ts";

/**
 * Route options for what lists or changes the fleet's models (the model lists, the lifecycle operations): a request
 * that comes while the first round of probes runs waits until it has settled, so that it never misses a model only
 * because the gateway has just started. Afterwards it costs one check.
 */
export function afterFirstRound(firstRound: FirstRound): { onRequest: onRequestHookHandler } {
  return {
    onRequest(_request, _reply, done) {
      if (firstRound.settled) done();
      else void firstRound.done.then(() => done());
    },
  };
}
