import { MAX_ALIAS_HOPS } from "../config/aliases.ts";
import type { PolicyConfig, Strategy } from "../config/schema.ts";
import { FILTERS } from "./filters/index.ts";
import { PolicyTable } from "./policies.ts";
import { orderCandidates, type StrategyState, type Weights } from "./strategy.ts";
import type { Candidate, Filter, Rejection, Requirements, RouteDecision, RouteReason, Target } from "./types.ts";

const NO_FALLBACKS: readonly string[] = [];

/** What routing reads from the fleet: no I/O, just lookups. */
export interface FleetView<C extends Candidate> {
  backendsFor(model: string): readonly C[];
  knows(model: string): boolean;
  healthyModelIds(): string[];
}

export interface RouterOptions {
  strategy: Strategy;
  weights: Weights;
  aliases: ReadonlyMap<string, string>;
  fallbacks: ReadonlyMap<string, readonly string[]>;
  policies: readonly PolicyConfig[];
  filters?: readonly Filter[];
  /** Applied after the strategy (policy ordering, e.g. the budget's soft limit). */
  order?: <C extends Candidate>(ordered: C[]) => C[];
  random?: () => number;
}

/** Decides where a request goes: aliases, filters, strategy, fallbacks. Pure apart from the round-robin counters. */
export class Router {
  readonly #options: RouterOptions;
  readonly #policies: PolicyTable;
  readonly #filters: readonly Filter[];
  readonly #state: StrategyState;

  constructor(options: RouterOptions) {
    this.#options = options;
    this.#policies = new PolicyTable(options.policies);
    this.#filters = options.filters ?? FILTERS;
    this.#state = { counters: new Map(), random: options.random ?? Math.random };
  }

  /** Follows aliases for at most MAX_ALIAS_HOPS hops. */
  resolveAlias(model: string): string {
    let current = model;
    for (let hop = 0; hop < MAX_ALIAS_HOPS; hop++) {
      const next = this.#options.aliases.get(current);
      if (next === undefined) break;
      current = next;
    }
    return current;
  }

  decide<C extends Candidate>(requested: string, requirements: Requirements, fleet: FleetView<C>): RouteDecision<C> {
    const resolved = this.resolveAlias(requested);
    const rejections: Rejection[] = [];
    const primaryPolicy = this.#policies.match(resolved);
    const primary = this.#candidates(resolved, requirements, fleet, rejections);
    const configured = this.#options.fallbacks.get(resolved);
    const chain = configured === undefined ? NO_FALLBACKS : configured.map((name) => this.resolveAlias(name));
    const targets: Target<C>[] = primary.map((backend) => ({ backend, model: resolved, fallback: false }));
    // Fallback models are tried when the primary has no candidate, and after every primary candidate failed.
    for (const model of chain) {
      const fallbackRejections: Rejection[] = targets.length === 0 ? rejections : [];
      for (const backend of this.#candidates(model, requirements, fleet, fallbackRejections)) {
        targets.push({ backend, model, fallback: true });
      }
    }
    if (targets.length > 0) {
      return {
        outcome: "route",
        targets,
        reason: this.#reason(targets, rejections, primaryPolicy?.privacy),
        resolvedModel: resolved,
        rejections,
      };
    }
    const models = [resolved, ...chain];
    if (!models.some((model) => fleet.knows(model))) {
      return { outcome: "unknown_model", resolvedModel: resolved, available: fleet.healthyModelIds() };
    }
    const available = new Set<string>();
    for (const model of models) {
      for (const backend of fleet.backendsFor(model)) if (backend.status === "healthy") available.add(backend.name);
    }
    return {
      outcome: "unavailable",
      resolvedModel: resolved,
      rejections,
      requiredTier: primaryPolicy?.minTier ?? 1,
      privacyZoneRequired: primaryPolicy?.privacy === "restricted" ? "restricted" : "open",
      availableBackends: [...available],
    };
  }

  #candidates<C extends Candidate>(
    model: string,
    requirements: Requirements,
    fleet: FleetView<C>,
    rejections: Rejection[],
  ): C[] {
    const context = { model, requirements, policy: this.#policies.match(model) };
    let candidates = fleet.backendsFor(model) as C[];
    for (const filter of this.#filters) {
      if (candidates.length === 0) break;
      candidates = filter(candidates, context, rejections);
    }
    const ordered = orderCandidates(candidates, this.#options.strategy, this.#options.weights, model, this.#state);
    return this.#options.order ? this.#options.order(ordered) : ordered;
  }

  #reason(targets: readonly Target[], rejections: readonly Rejection[], privacy: string | undefined): RouteReason {
    if (targets[0]?.fallback) return "failover";
    if (privacy === "restricted") return "privacy-requirement";
    if (rejections.some((rejection) => rejection.reason === "at_capacity")) return "capacity-overflow";
    return "capability-match";
  }
}
