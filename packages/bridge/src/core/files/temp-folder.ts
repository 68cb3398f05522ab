// The bridge's private folder for files in transit (mode 0700 under the system's temporary folder, made on first
// use): each download gets a fresh name there, and is removed once every destination is done with it; whatever is
// left (a crash) is removed with the folder at stop, or by the system's cleaning of its temporary folder.
import { mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export class TempFolder {
  #path: string | undefined;
  #next = 0;

  /** A new path in the folder (nothing is created there). */
  newPath(): string {
    this.#path ??= mkdtempSync(join(tmpdir(), "switchboard-files-"));
    this.#next++;
    return join(this.#path, String(this.#next));
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  }

  /** Removes the folder and whatever is still in it. */
  close(): void {
    if (this.#path !== undefined) rmSync(this.#path, { recursive: true, force: true });
    this.#path = undefined;
  }
}
