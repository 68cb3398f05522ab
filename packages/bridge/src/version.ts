// The subpath, not the package: its index also loads the log output (pino, pino-pretty), which --version needs not.
import { packageVersion } from "@switchboard/common/version";

/** The bridge's version, from its package.json. */
export const VERSION: string = packageVersion(new URL("../package.json", import.meta.url));
