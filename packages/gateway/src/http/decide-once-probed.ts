import type { FirstRound } from "../fleet/first-round.ts";
import type { Candidate, RouteDecision } from "../routing/types.ts";

/**
 * The routing decision for a request, once the gateway's first round of probes allows one. While the round runs, a
 * model that no probed backend has, or that no healthy one serves yet, may be served by a backend whose probe has
 * not answered: the request waits for the round's next probe result and is routed again. After the round (and for
 * every request a probed backend can take) the decision is the router's, at once.
 */
export function decideOnceProbed<C extends Candidate>(
  route: () => RouteDecision<C>,
  firstRound: FirstRound,
): RouteDecision<C> | Promise<RouteDecision<C>> {
  const decision = route();
  if (firstRound.settled || (decision.outcome !== "unknown_model" && decision.outcome !== "unavailable")) {
    return decision;
  }
  return firstRound.next().then(() => decideOnceProbed(route, firstRound));
}
