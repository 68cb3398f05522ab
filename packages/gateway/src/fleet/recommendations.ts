import { createHash } from "node:crypto";
import type { DemandView } from "./demand.ts";

/** What the analysis needs to know about a backend. */
export interface BackendFacts {
  name: string;
  healthy: boolean;
  /** Its type can load models on demand (Ollama): only such backends are pre-warm or unload targets. */
  canLoad: boolean;
  models: ReadonlySet<string>;
}

export interface RecommendationSettings {
  /** Days of history a model needs before any advice about it. */
  minSampleDays: number;
  /** Requests a model needs in the kept history before any advice about it. */
  minRequestCount: number;
  maxRecommendations: number;
  /** An hour of the day whose average demand is at least this many times the model's average busy hour is a peak. */
  peakRatio: number;
  /** Demand this much higher (percent) in the recent window than in the one before is a rising trend. */
  risingPercent: number;
  /** A model with no request for this many hours, after being used, is idle. */
  idleHours: number;
}

export const RECOMMENDATION_DEFAULTS: RecommendationSettings = {
  minSampleDays: 7,
  minRequestCount: 100,
  maxRecommendations: 5,
  peakRatio: 2,
  risingPercent: 20,
  idleHours: 24,
};

/** Nexus's PrewarmingRecommendation, field for field (a client written for Nexus reads it), plus `kind`. */
export interface Recommendation {
  recommendation_id: string;
  /** Ours: Nexus only pre-warms. */
  kind: "prewarm" | "unload";
  model_id: string;
  /** Backend names: a backend's name is its id here. */
  target_backend_ids: string[];
  /** 0..1: how strong the pattern is, how many requests and days it rests on. */
  confidence_score: number;
  reasoning: string;
  /** Not estimated (Nexus's is always null too). */
  vram_required_bytes: null;
  generated_at: string;
  expires_at: string;
}

const HOUR_MS = 3_600_000;
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const round2 = (value: number) => Math.round(value * 100) / 100;

/** The advice's stable id: the same advice about the same backends keeps its id from one analysis to the next. */
function adviceId(kind: string, model: string, targets: readonly string[]): string {
  const digest = createHash("sha256")
    .update(`${kind}\u0000${model}\u0000${targets.join("\u0000")}`)
    .digest("hex");
  return `rec-${digest.slice(0, 16)}`;
}

/** Average requests for each hour of the day (UTC) over the hours observed, and the busiest one. */
function dailyProfile(counts: readonly number[], firstIndex: number, currentHour: number) {
  const totals = new Array<number>(24).fill(0);
  const seen = new Array<number>(24).fill(0);
  const startHour = currentHour - counts.length + 1;
  for (let index = firstIndex; index < counts.length; index++) {
    const hourOfDay = (((startHour + index) % 24) + 24) % 24;
    totals[hourOfDay]! += counts[index]!;
    seen[hourOfDay]!++;
  }
  const profile = totals.map((total, hour) => (seen[hour]! > 0 ? total / seen[hour]! : 0));
  const busy = profile.filter((value) => value > 0);
  const mean = busy.length > 0 ? sum(busy) / busy.length : 0;
  const peak = Math.max(...profile);
  return { peakHour: profile.indexOf(peak), ratio: mean > 0 ? peak / mean : 0 };
}

/**
 * Fleet advice from the demand history: pre-warm a model with a recurring daily peak or rising demand on loadable
 * backends that do not have it, and unload a model that went idle from the loadable backends that have it. Pure: the
 * same history, fleet and time give the same advice (docs/gateway.md, "Fleet recommendations", explains each rule).
 */
export function recommend(
  demand: DemandView,
  backends: readonly BackendFacts[],
  settings: RecommendationSettings,
  now: number,
): Recommendation[] {
  const first = demand.firstHour;
  if (first === undefined) return [];
  const spanHours = demand.hour - first + 1;
  const spanDays = spanHours / 24;
  const generated = new Date(now).toISOString();
  const expires = new Date((Math.floor(now / HOUR_MS) + 1) * HOUR_MS).toISOString();
  const loadable = backends.filter((backend) => backend.healthy && backend.canLoad);
  const advice: Recommendation[] = [];
  for (const model of demand.models()) {
    const counts = demand.hourly(model);
    const firstIndex = Math.max(0, counts.length - spanHours);
    const total = sum(counts);
    if (total < settings.minRequestCount || spanDays < settings.minSampleDays) continue;
    const sample = Math.min(1, total / (5 * settings.minRequestCount));
    const days = Math.min(1, spanDays / (2 * settings.minSampleDays));

    // Idle: used before, nothing for idleHours.
    const recent = counts.slice(-settings.idleHours);
    const holders = loadable.filter((backend) => backend.models.has(model)).map((backend) => backend.name);
    if (sum(recent) === 0 && holders.length > 0) {
      advice.push({
        recommendation_id: adviceId("unload", model, holders),
        kind: "unload",
        model_id: model,
        target_backend_ids: holders,
        confidence_score: round2(0.5 + 0.25 * sample + 0.25 * days),
        vram_required_bytes: null,
        reasoning: `No request for ${settings.idleHours} h after ${total} requests over ${Math.floor(spanDays)} days: unload it to free memory for others`,
        generated_at: generated,
        expires_at: expires,
      });
      continue;
    }

    // Pre-warm: a recurring peak hour, or demand rising window over window.
    const { peakHour, ratio } = dailyProfile(counts, firstIndex, demand.hour);
    const windowHours = Math.min(7 * 24, Math.floor(spanHours / 2));
    const latest = sum(counts.slice(-windowHours));
    const before = sum(counts.slice(-2 * windowHours, -windowHours));
    const risingBy = before > 0 ? ((latest - before) / before) * 100 : latest > 0 ? Number.POSITIVE_INFINITY : 0;
    const peaked = ratio >= settings.peakRatio;
    const rising = windowHours >= 24 && risingBy > settings.risingPercent;
    if (!peaked && !rising) continue;
    const targets = loadable.filter((backend) => !backend.models.has(model)).map((backend) => backend.name);
    if (targets.length === 0) continue;
    const pattern = peaked ? Math.min(1, (ratio - 1) / 3) : 0.3;
    const reasons: string[] = [];
    if (peaked)
      reasons.push(
        `daily peak at ${String(peakHour).padStart(2, "0")}:00 UTC (${round2(ratio)}× its average busy hour)`,
      );
    if (rising) {
      const change = Number.isFinite(risingBy) ? `up ${Math.round(risingBy)} %` : "new";
      reasons.push(`demand ${change} over the last ${windowHours / 24} days against the ${windowHours / 24} before`);
    }
    advice.push({
      recommendation_id: adviceId("prewarm", model, targets),
      kind: "prewarm",
      model_id: model,
      target_backend_ids: targets,
      confidence_score: round2(0.5 * pattern + 0.25 * sample + 0.25 * days),
      vram_required_bytes: null,
      reasoning: `${reasons.join("; ")}; based on ${total} requests over ${Math.floor(spanDays)} days`,
      generated_at: generated,
      expires_at: expires,
    });
  }
  return advice
    .sort((a, b) => b.confidence_score - a.confidence_score || (a.model_id < b.model_id ? -1 : 1))
    .slice(0, settings.maxRecommendations);
}
