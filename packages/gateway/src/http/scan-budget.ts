/**
 * How many bytes of request bodies the event loop scans and copies in one turn, across all requests. Both are linear
 * (JsonShapeScanner; BodyBuffer growing its shared buffer, which also zero-fills the new one), but a turn can deliver
 * many chunks of several uploads at once, and scanning or copying them all in one turn held the loop for tens of
 * milliseconds (docs/benchmarks.md, "Figures behind the code"). Past the budget, a request is paused and resumed on
 * the next turn, so one turn does about this much, or one growth step, never several.
 */
const BYTES_PER_TURN = 1024 * 1024;

let spent = 0;
const waiting: (() => void)[] = [];
let nextTurn: NodeJS.Immediate | undefined;

function newTurn(): void {
  nextTurn = undefined;
  spent = 0;
  for (const resume of waiting.splice(0)) resume();
}

/** Counts `bytes` scanned in this turn; false once the turn's budget is used up (the caller then waits). */
export function spendScanBudget(bytes: number): boolean {
  if (spent === 0 && nextTurn === undefined) nextTurn = setImmediate(newTurn);
  spent += bytes;
  return spent < BYTES_PER_TURN;
}

/** Whether `bytes` more can be scanned in this turn. */
export function scanBudgetLeft(bytes: number): boolean {
  return spent + bytes < BYTES_PER_TURN;
}

/** Calls `resume` on the next turn, when the budget is new. */
export function nextScanTurn(resume: () => void): void {
  waiting.push(resume);
  nextTurn ??= setImmediate(newTurn);
}
