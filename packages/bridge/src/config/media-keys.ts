// The [general] media keys checked together: a media server needs its download URL, and every
// MediaDownloadBlackList entry must compile (core/files/ reads them).
import { thrownMessage } from "@switchboard/common";
import { compileGoRegex } from "../regex.ts";
import { ConfigError } from "./errors.ts";
import type { BridgeConfig } from "./types.ts";

export function checkMediaKeys(config: BridgeConfig): BridgeConfig {
  const general = config.general;
  const stores = general.MediaServerUpload !== "" || general.MediaDownloadPath !== "";
  if (stores && general.MediaServerDownload === "") {
    throw new ConfigError(
      "[general]: MediaServerUpload or MediaDownloadPath is set but MediaServerDownload is not; set it to the base URL the stored files are served from",
    );
  }
  for (const pattern of general.MediaDownloadBlackList) {
    try {
      compileGoRegex(pattern);
    } catch (error) {
      const reason = thrownMessage(error);
      throw new ConfigError(
        `[general]: MediaDownloadBlackList has an invalid regex ${JSON.stringify(pattern)}: ${reason}`,
      );
    }
  }
  return config;
}
