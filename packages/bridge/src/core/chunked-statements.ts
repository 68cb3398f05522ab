// Many rows with few statements: a turn's new rows go in multi-row INSERTs of 64, 8 and 1 rows (each statement
// prepared once, on first use), and its confirmed queue rows go by ranges of sequence numbers (`seq BETWEEN`), the
// numbers that do not make a range by `seq IN (...)` in the same chunks. Each statement run has a fixed cost on top
// of SQLite's work per row (the call into better-sqlite3, binding, stepping and resetting, the result object): a
// burst's rows pay it a few times instead of once each.
import type Database from "better-sqlite3";

/** Rows per statement, largest first: a turn of n rows costs at most n/64 + 7 + 7 runs. */
const CHUNK_SIZES = [64, 8, 1] as const;

/**
 * Runs a write statement with its values; false when it failed (the turn's failure then being recorded by whoever
 * runs it), so that the rest of the rows are not written.
 */
export type RunStatement = (statement: Database.Statement<unknown[]>, values: readonly unknown[]) => boolean;

/** Keeps a statement reachable for the life of the process (see KEPT_FOR_THE_PROCESS in sqlite-state-store.ts). */
export type Keep = (statement: Database.Statement<unknown[]>) => void;

/** The statement for each chunk size, prepared on first use. */
class ChunkStatements {
  readonly #prepare: (rows: number) => Database.Statement<unknown[]>;
  /** By chunk size. */
  readonly #prepared: (Database.Statement<unknown[]> | undefined)[] = [];

  constructor(db: Database.Database, keep: Keep, sqlFor: (rows: number) => string) {
    this.#prepare = (rows) => {
      const statement = db.prepare<unknown[]>(sqlFor(rows));
      keep(statement);
      return statement;
    };
  }

  #statement(rows: number): Database.Statement<unknown[]> {
    let statement = this.#prepared[rows];
    if (statement === undefined) {
      statement = this.#prepare(rows);
      this.#prepared[rows] = statement;
    }
    return statement;
  }

  /** Runs the statements for `count` rows of `width` values each, in chunks; false once one failed. */
  runAll(run: RunStatement, count: number, width: number, values: readonly unknown[]): boolean {
    let row = 0;
    for (const size of CHUNK_SIZES) {
      while (count - row >= size) {
        const chunk = size === count ? values : values.slice(row * width, (row + size) * width);
        if (!run(this.#statement(size), chunk)) return false;
        row += size;
      }
    }
    return true;
  }
}

/** `INSERT [OR REPLACE] INTO table (columns) VALUES (...), (...)`, in chunks. */
export class ChunkedInsert {
  readonly #statements: ChunkStatements;
  readonly #width: number;

  constructor(db: Database.Database, keep: Keep, head: string, columns: readonly string[]) {
    this.#width = columns.length;
    const row = `(${columns.map(() => "?").join(", ")})`;
    this.#statements = new ChunkStatements(
      db,
      keep,
      (rows) => `${head} (${columns.join(", ")}) VALUES ${Array.from({ length: rows }, () => row).join(", ")}`,
    );
  }

  /** Inserts the rows whose values are in `values`, one row after the other, in order; false once a run failed. */
  insert(run: RunStatement, values: readonly unknown[]): boolean {
    return this.#statements.runAll(run, values.length / this.#width, this.#width, values);
  }
}

/**
 * Sequence numbers (in any order, repeated or not) as ranges of consecutive numbers ([first, last], two numbers at
 * least) and the numbers left alone, ascending.
 */
export function seqRanges(seqs: readonly number[]): { ranges: [number, number][]; singles: number[] } {
  let sorted = seqs;
  for (let i = 1; i < seqs.length; i++) {
    if ((seqs[i] as number) <= (seqs[i - 1] as number)) {
      sorted = [...new Set(seqs)].sort((a, b) => a - b);
      break;
    }
  }
  const ranges: [number, number][] = [];
  const singles: number[] = [];
  let i = 0;
  while (i < sorted.length) {
    const first = sorted[i] as number;
    let last = first;
    while (i + 1 < sorted.length && sorted[i + 1] === last + 1) last = sorted[++i] as number;
    i++;
    if (last === first) singles.push(first);
    else ranges.push([first, last]);
  }
  return { ranges, singles };
}

/** `DELETE FROM table WHERE column BETWEEN ? AND ?` / `IN (...)`: rows by their (unique integer) key. */
export class ChunkedDelete {
  readonly #between: Database.Statement<unknown[]>;
  readonly #in: ChunkStatements;

  constructor(db: Database.Database, keep: Keep, table: string, column: string) {
    this.#between = db.prepare<unknown[]>(`DELETE FROM ${table} WHERE ${column} BETWEEN ? AND ?`);
    keep(this.#between);
    this.#in = new ChunkStatements(db, keep, (rows) =>
      rows === 1
        ? `DELETE FROM ${table} WHERE ${column} = ?`
        : `DELETE FROM ${table} WHERE ${column} IN (${Array.from({ length: rows }, () => "?").join(", ")})`,
    );
  }

  /** Deletes the rows whose keys are `keys` (in any order); false once a run failed. */
  delete(run: RunStatement, keys: readonly number[]): boolean {
    if (keys.length === 1) return this.#in.runAll(run, 1, 1, keys);
    const { ranges, singles } = seqRanges(keys);
    for (const range of ranges) if (!run(this.#between, range)) return false;
    return this.#in.runAll(run, singles.length, 1, singles);
  }
}
