// The [general] media keys as the file relay uses them (validated in config/validate.ts).
import type { GeneralSettings } from "../../config/types.ts";
import { compileGoRegex } from "../../regex.ts";
import { DEFAULT_FILE_RELAY, type FileRelaySettings } from "./file-relay.ts";

export function fileRelaySettings(general: GeneralSettings): FileRelaySettings {
  const stores = general.MediaServerUpload !== "" || general.MediaDownloadPath !== "";
  return {
    ...DEFAULT_FILE_RELAY,
    maxBytes: general.MediaDownloadSize,
    blackList: general.MediaDownloadBlackList.map((pattern) => compileGoRegex(pattern)),
    mediaServer:
      stores && general.MediaServerDownload !== ""
        ? {
            upload: general.MediaServerUpload,
            downloadPath: general.MediaDownloadPath,
            download: general.MediaServerDownload,
          }
        : undefined,
  };
}
