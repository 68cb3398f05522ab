// Which state store a run uses, from `[general] StateFile`: the SQLite file (by default beside the config), or none.
import { DEFAULT_ID_CACHE_SIZE } from "./id-cache.ts";
import { openSqliteStateStore } from "./sqlite-state-store.ts";
import { stateFilePath } from "./state-file.ts";
import { NO_STATE, type StateStore } from "./state-store.ts";

export { StateFileError } from "./state-file.ts";

/** Throws StateFileError (one line naming the file) when the file cannot be used. */
export function openStateStore(setting: string | undefined, configPath: string): StateStore {
  const path = stateFilePath(setting, configPath);
  if (path === undefined) return NO_STATE;
  return openSqliteStateStore(path, { idMapSize: DEFAULT_ID_CACHE_SIZE });
}
