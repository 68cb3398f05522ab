import type { QualityView } from "./types.ts";

/** `[quality]`: when a backend's recent answers for a model leave it out of routing, or lower its smart score. */
export interface QualitySettings {
  /** Error rate (0..1) over the window at or above which the backend is left out for that model. */
  errorRateThreshold: number;
  /** Outcomes needed in the window before the error rate counts (one failure alone never excludes). */
  minRequests: number;
  windowSeconds: number;
  /** How long an excluded backend is left out before one trial request may go to it (half-open). */
  cooldownSeconds: number;
  /** Average time to first token above which the smart score is lowered (to 0 at twice this value). */
  ttftPenaltyThresholdMs: number;
}

const DEFAULT_QUALITY: QualitySettings = {
  errorRateThreshold: 0.5,
  minRequests: 3,
  windowSeconds: 60,
  cooldownSeconds: 30,
  ttftPenaltyThresholdMs: 3000,
};

/** Samples kept per backend and model: the window is also bounded by count, so memory stays flat under load. */
const MAX_SAMPLES = 256;

interface Sample {
  at: number;
  ok: boolean;
  ttftMs: number | undefined;
}

type Circuit = { state: "closed" } | { state: "open"; until: number } | { state: "half_open"; trialInFlight: boolean };

/** The window's samples with running sums, so that recording and reading are O(1) amortised. */
interface Track {
  samples: Sample[];
  /** Index of the oldest sample still in the window (older ones are dropped in batches). */
  start: number;
  errors: number;
  ttftTotal: number;
  ttftCount: number;
  circuit: Circuit;
}

export type CircuitState = Circuit["state"];

/**
 * Per backend and model: error rate and time to first token over a sliding window, and a circuit breaker. Over the
 * error threshold the circuit opens (the backend is left out for that model); after the cool-down it is half-open:
 * exactly one trial request may go, whose success closes it (with a clean window) and whose failure opens it again.
 * Fed by the event stream (see `trackQuality`); routing reads it through `QualityView`. Time is passed in for tests.
 */
export class QualityTracker implements QualityView {
  /**
   * By backend, then model: two lookups of strings the router and the events already hold, where one key built per
   * call (`backend + model`) was a new string to allocate and hash several times per request.
   */
  readonly #tracks = new Map<string, Map<string, Track>>();

  constructor(
    readonly settings: QualitySettings = DEFAULT_QUALITY,
    private readonly now: () => number = Date.now,
  ) {}

  /** An attempt's verdict: ok, failed (the backend's fault), or undefined when it says nothing (the client left). */
  record(backend: string, model: string, ok: boolean | undefined, ttftMs: number | undefined): void {
    const track = this.#track(backend, model);
    const now = this.now();
    if (track.circuit.state === "half_open" && track.circuit.trialInFlight) {
      if (ok === undefined) track.circuit.trialInFlight = false;
      else if (ok) {
        track.circuit = { state: "closed" };
        clear(track);
      } else {
        track.circuit = { state: "open", until: now + this.settings.cooldownSeconds * 1000 };
        return;
      }
    }
    if (ok === undefined) return;
    track.samples.push({ at: now, ok, ttftMs });
    if (!ok) track.errors++;
    if (ttftMs !== undefined) {
      track.ttftTotal += ttftMs;
      track.ttftCount++;
    }
    if (track.samples.length - track.start > MAX_SAMPLES) drop(track, track.start + 1);
    if (
      track.circuit.state === "closed" &&
      this.#errorRate(this.#windowed(track)) >= this.settings.errorRateThreshold
    ) {
      track.circuit = { state: "open", until: now + this.settings.cooldownSeconds * 1000 };
    }
  }

  /** Error rate over the window, or 0 while fewer than `minRequests` outcomes are in it. */
  errorRate(backend: string, model: string): number {
    return this.#errorRate(this.#window(backend, model));
  }

  #errorRate(track: Track | undefined): number {
    const count = track === undefined ? 0 : track.samples.length - track.start;
    if (track === undefined || count === 0 || count < this.settings.minRequests) return 0;
    return track.errors / count;
  }

  averageTtftMs(backend: string, model: string): number | undefined {
    const track = this.#window(backend, model);
    return track === undefined || track.ttftCount === 0 ? undefined : track.ttftTotal / track.ttftCount;
  }

  state(backend: string, model: string): CircuitState {
    return this.#circuit(backend, model).state;
  }

  admits(backend: string, model: string): boolean {
    const circuit = this.#circuit(backend, model);
    return circuit.state === "closed" || (circuit.state === "half_open" && !circuit.trialInFlight);
  }

  /** Called as an attempt starts: claims the half-open trial. False when the backend must not be tried now. */
  beginAttempt(backend: string, model: string): boolean {
    const circuit = this.#circuit(backend, model);
    if (circuit.state === "closed") return true;
    if (circuit.state === "open" || circuit.trialInFlight) return false;
    circuit.trialInFlight = true;
    return true;
  }

  ttftFactor(backend: string, model: string): number {
    const threshold = this.settings.ttftPenaltyThresholdMs;
    const average = this.averageTtftMs(backend, model);
    if (average === undefined || average <= threshold || threshold <= 0) return 1;
    return 1 - Math.min(1, (average - threshold) / threshold);
  }

  /** The circuit, moved from open to half-open once the cool-down has passed. */
  #circuit(backend: string, model: string): Circuit {
    const track = this.#tracks.get(backend)?.get(model);
    if (!track) return CLOSED;
    if (track.circuit.state === "open" && this.now() >= track.circuit.until) {
      track.circuit = { state: "half_open", trialInFlight: false };
    }
    return track.circuit;
  }

  /** The track, with the samples older than the window dropped. */
  #window(backend: string, model: string): Track | undefined {
    const track = this.#tracks.get(backend)?.get(model);
    return track === undefined ? undefined : this.#windowed(track);
  }

  #windowed(track: Track): Track {
    const since = this.now() - this.settings.windowSeconds * 1000;
    let first = track.start;
    while (first < track.samples.length && track.samples[first]!.at < since) first++;
    if (first > track.start) drop(track, first);
    return track;
  }

  #track(backend: string, model: string): Track {
    let models = this.#tracks.get(backend);
    if (!models) {
      models = new Map();
      this.#tracks.set(backend, models);
    }
    let track = models.get(model);
    if (!track) {
      track = { samples: [], start: 0, errors: 0, ttftTotal: 0, ttftCount: 0, circuit: { state: "closed" } };
      models.set(model, track);
    }
    return track;
  }
}

const CLOSED: Circuit = { state: "closed" };

/** Drops the samples before index `until` from the sums; compacts the array once enough of it is dropped. */
function drop(track: Track, until: number): void {
  for (let i = track.start; i < until; i++) {
    const sample = track.samples[i]!;
    if (!sample.ok) track.errors--;
    if (sample.ttftMs !== undefined) {
      track.ttftTotal -= sample.ttftMs;
      track.ttftCount--;
    }
  }
  track.start = until;
  if (track.start >= MAX_SAMPLES) {
    track.samples = track.samples.slice(track.start);
    track.start = 0;
  }
}

function clear(track: Track): void {
  track.samples = [];
  track.start = 0;
  track.errors = 0;
  track.ttftTotal = 0;
  track.ttftCount = 0;
}
