import { packageVersion } from "@switchboard/common";

/** The gateway's version, from its package.json. */
export const VERSION: string = packageVersion(new URL("../package.json", import.meta.url));
