import type { Strategy } from "../config/schema.ts";
import type { Candidate } from "./types.ts";

export interface Weights {
  priority: number;
  load: number;
  latency: number;
}

/**
 * smart: lower priority number, fewer requests in flight and lower probe latency score higher (0..100); `ttftFactor`
 * (1 = fine, down to 0) scales the score down when the backend's time to first token for the model is slow.
 */
function smartScore(candidate: Candidate, weights: Weights, ttftFactor = 1): number {
  const priority = 100 - Math.min(Math.max(candidate.settings.priority, 0), 100);
  const load = 100 - Math.min(candidate.pending, 100);
  const latency = 100 - Math.min((candidate.probeLatencyMs ?? 0) / 10, 100);
  const total = weights.priority + weights.load + weights.latency;
  if (total === 0) return 0;
  return ((priority * weights.priority + load * weights.load + latency * weights.latency) / total) * ttftFactor;
}

export interface StrategyState {
  /** Next round-robin position per model. */
  counters: Map<string, number>;
  random: () => number;
  /** The smart score's time-to-first-token factor for a backend and model (quality tracking). */
  ttftFactor?: (backend: string, model: string) => number;
}

function byPriority<C extends Candidate>(candidates: readonly C[]): C[] {
  return [...candidates].sort((a, b) => a.settings.priority - b.settings.priority);
}

/**
 * Orders the candidates: the first is chosen, the rest are the failover order. Stable for equal scores. The result may
 * be the input array itself (one candidate); callers must not mutate it.
 */
export function orderCandidates<C extends Candidate>(
  candidates: readonly C[],
  strategy: Strategy,
  weights: Weights,
  model: string,
  state: StrategyState,
): C[] {
  if (candidates.length <= 1) return candidates as C[];
  switch (strategy) {
    case "priority_only":
      return byPriority(candidates);
    case "round_robin": {
      const position = state.counters.get(model) ?? 0;
      state.counters.set(model, (position + 1) % candidates.length);
      const start = position % candidates.length;
      return [...candidates.slice(start), ...candidates.slice(0, start)];
    }
    case "random": {
      const pick = Math.min(Math.floor(state.random() * candidates.length), candidates.length - 1);
      const rest = byPriority(candidates).filter((candidate) => candidate !== candidates[pick]);
      return [candidates[pick]!, ...rest];
    }
    default: {
      const factor = state.ttftFactor;
      const scored = candidates.map((candidate) => ({
        candidate,
        score: smartScore(candidate, weights, factor === undefined ? 1 : factor(candidate.name, model)),
      }));
      scored.sort((a, b) => b.score - a.score);
      return scored.map((entry) => entry.candidate);
    }
  }
}
