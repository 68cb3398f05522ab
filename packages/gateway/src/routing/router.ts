import { MAX_ALIAS_HOPS } from "../config/aliases.ts";
import type { PolicyConfig, Strategy } from "../config/schema.ts";
import { capacityFilter } from "./filters/capacity.ts";
import { FILTERS } from "./filters/index.ts";
import { PolicyTable } from "./policies.ts";
import { orderCandidates, type StrategyState, type Weights } from "./strategy.ts";
import type {
  Candidate,
  Filter,
  PolicyRequirement,
  QualityView,
  Rejection,
  Requirements,
  RouteDecision,
  RouteOptions,
  RouteReason,
  Target,
} from "./types.ts";

const NO_FALLBACKS: readonly string[] = [];
const STRICT: RouteOptions = { flexible: false };

/** What routing reads from the fleet: no I/O, just lookups. */
export interface FleetView<C extends Candidate> {
  backendsFor(model: string): readonly C[];
  knows(model: string): boolean;
  healthyModelIds(): string[];
  /** Every model any backend lists (candidates for a flexible substitution). */
  modelIds(): Iterable<string>;
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
  /** Recent error rates and times to first token per backend and model. */
  quality?: QualityView;
  /** Receives how long each routing stage took (the metrics); absent, nothing is timed. */
  timings?: RoutingTimings;
}

/** Where routing reports its timing: each filter by name, the strategy, and a whole decision. */
export interface RoutingTimings {
  stage(name: string, seconds: number): void;
  decision(seconds: number): void;
}

/** A filter's stage name: its function's name without "Filter"/"Stage" (healthFilter → health). */
function stageName(filter: Filter): string {
  return filter.name.replace(/(Filter|Stage)$/, "") || "filter";
}

/**
 * A model reached from the requested one (a fallback or a substitute) keeps the requested model's requirements: it is
 * restricted when either is, and its tier is at least the requested one's. Nothing routes around a policy.
 */
function inherit(
  requested: PolicyRequirement | undefined,
  own: PolicyRequirement | undefined,
  minTier?: number,
): PolicyRequirement | undefined {
  if (requested === undefined && minTier === undefined) return own;
  const tiers = [requested?.minTier, own?.minTier, minTier].filter((tier): tier is number => tier !== undefined);
  return {
    privacy: requested?.privacy === "restricted" || own?.privacy === "restricted" ? "restricted" : "unrestricted",
    minTier: tiers.length === 0 ? undefined : Math.max(...tiers),
  };
}

/** Decides where a request goes: aliases, filters, strategy, fallbacks. Pure apart from the round-robin counters. */
export class Router {
  readonly #options: RouterOptions;
  readonly #policies: PolicyTable;
  readonly #filters: readonly Filter[];
  readonly #state: StrategyState;
  readonly #stageNames: ReadonlyMap<Filter, string>;

  constructor(options: RouterOptions) {
    this.#options = options;
    this.#policies = new PolicyTable(options.policies);
    this.#filters = options.filters ?? FILTERS;
    this.#stageNames = new Map(this.#filters.map((filter) => [filter, stageName(filter)]));
    const quality = options.quality;
    this.#state = {
      counters: new Map(),
      random: options.random ?? Math.random,
      ttftFactor: quality ? (backend, model) => quality.ttftFactor(backend, model) : undefined,
    };
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

  decide<C extends Candidate>(
    requested: string,
    requirements: Requirements,
    fleet: FleetView<C>,
    options: RouteOptions = STRICT,
  ): RouteDecision<C> {
    const timings = this.#options.timings;
    if (!timings) return this.#decide(requested, requirements, fleet, options);
    const started = performance.now();
    const decision = this.#decide(requested, requirements, fleet, options);
    timings.decision((performance.now() - started) / 1000);
    return decision;
  }

  #decide<C extends Candidate>(
    requested: string,
    requirements: Requirements,
    fleet: FleetView<C>,
    options: RouteOptions,
  ): RouteDecision<C> {
    const resolved = this.resolveAlias(requested);
    const rejections: Rejection[] = [];
    const blocked: Target<C>[] = [];
    const primaryPolicy = this.#policies.match(resolved);
    const primary = this.#candidates(resolved, requirements, fleet, primaryPolicy, rejections, blocked, false);
    const configured = this.#options.fallbacks.get(resolved);
    const chain = configured === undefined ? NO_FALLBACKS : configured.map((name) => this.resolveAlias(name));
    const targets: Target<C>[] = primary.map((backend) => ({ backend, model: resolved, fallback: false }));
    // Fallback models are tried when the primary has no candidate, and after every primary candidate failed.
    for (const model of chain) {
      const none = targets.length === 0;
      const policy = inherit(primaryPolicy, this.#policies.match(model));
      const found = this.#candidates(
        model,
        requirements,
        fleet,
        policy,
        none ? rejections : [],
        none ? blocked : [],
        true,
      );
      for (const backend of found) targets.push({ backend, model, fallback: true });
    }
    const models = [resolved, ...chain];
    if (targets.length === 0 && !models.some((model) => fleet.knows(model))) {
      return { outcome: "unknown_model", resolvedModel: resolved, available: fleet.healthyModelIds() };
    }
    if (targets.length === 0 && options.flexible && requirements.kind === "chat") {
      targets.push(...this.#substitutes(resolved, models, requirements, fleet, primaryPolicy, blocked));
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
    const available = new Set<string>();
    for (const model of models) {
      for (const backend of fleet.backendsFor(model)) if (backend.status === "healthy") available.add(backend.name);
    }
    const unavailability = {
      resolvedModel: resolved,
      rejections,
      requiredTier: primaryPolicy?.minTier ?? 1,
      privacyZoneRequired: primaryPolicy?.privacy === "restricted" ? ("restricted" as const) : ("open" as const),
      availableBackends: [...available],
    };
    if (blocked.length > 0) return { outcome: "at_capacity", blocked, ...unavailability };
    return { outcome: "unavailable", ...unavailability };
  }

  /**
   * Flexible substitution: other models on backends of at least the requested model's tier (its policy's `min_tier`,
   * and no lower than the lowest tier it is served at), under the requested model's privacy. Closest tier first.
   */
  #substitutes<C extends Candidate>(
    resolved: string,
    excluded: readonly string[],
    requirements: Requirements,
    fleet: FleetView<C>,
    primaryPolicy: PolicyRequirement | undefined,
    blocked: Target<C>[],
  ): Target<C>[] {
    let floor = primaryPolicy?.minTier ?? 1;
    const servedAt = fleet.backendsFor(resolved).map((backend) => backend.settings.tier);
    if (servedAt.length > 0) floor = Math.max(floor, Math.min(...servedAt));
    const found: Target<C>[] = [];
    const substituteBlocked: Target<C>[] = [];
    for (const model of fleet.modelIds()) {
      if (excluded.includes(model)) continue;
      const policy = inherit(primaryPolicy, this.#policies.match(model), floor);
      const waiting: Target<C>[] = [];
      for (const backend of this.#candidates(model, requirements, fleet, policy, [], waiting, true)) {
        found.push({ backend, model, fallback: true, substitute: true });
      }
      for (const target of waiting) substituteBlocked.push({ ...target, substitute: true });
    }
    const byTier = (a: Target<C>, b: Target<C>) => a.backend.settings.tier - b.backend.settings.tier;
    blocked.push(...substituteBlocked.sort(byTier));
    return found.sort(byTier);
  }

  /**
   * The model's qualifying backends, in strategy order. Those turned away by capacity alone (they passed every other
   * filter) are added to `blocked`: a queued request may wait for them.
   */
  #candidates<C extends Candidate>(
    model: string,
    requirements: Requirements,
    fleet: FleetView<C>,
    policy: PolicyRequirement | undefined,
    rejections: Rejection[],
    blocked: Target<C>[],
    fallback: boolean,
  ): C[] {
    const context = { model, requirements, policy, quality: this.#options.quality };
    let candidates = fleet.backendsFor(model) as C[];
    const timings = this.#options.timings;
    // One clock reading per stage boundary: a stage's end is the next one's start.
    let mark = timings ? performance.now() : 0;
    for (const filter of this.#filters) {
      if (candidates.length === 0) break;
      const before = candidates;
      candidates = filter(candidates, context, rejections);
      if (timings) mark = this.#timed(timings, this.#stageNames.get(filter)!, mark);
      if (filter === capacityFilter && candidates !== before) {
        for (const backend of before) if (!candidates.includes(backend)) blocked.push({ backend, model, fallback });
      }
    }
    const ordered = orderCandidates(candidates, this.#options.strategy, this.#options.weights, model, this.#state);
    if (timings) this.#timed(timings, "strategy", mark);
    return this.#options.order ? this.#options.order(ordered) : ordered;
  }

  /** Reports the stage that began at `since`; returns now, the next stage's start. */
  #timed(timings: RoutingTimings, stage: string, since: number): number {
    const now = performance.now();
    timings.stage(stage, (now - since) / 1000);
    return now;
  }

  #reason(targets: readonly Target[], rejections: readonly Rejection[], privacy: string | undefined): RouteReason {
    if (targets[0]?.substitute) return "flexible-substitution";
    if (targets[0]?.fallback) return "failover";
    if (privacy === "restricted") return "privacy-requirement";
    if (rejections.some((rejection) => rejection.reason === "at_capacity")) return "capacity-overflow";
    return "capability-match";
  }
}
