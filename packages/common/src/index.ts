export { abortEither } from "./abort-either.ts";
export { type DirectInfoLines, directInfoLines, jsonNumber } from "./direct-log-line.ts";
export { FileInUseError, type FileLock, lockFile } from "./file-lock.ts";
export { closeIdleConnectionsAfterReading } from "./http1/idle-close.ts";
export { beginJoinedWrite, endJoinedWrite } from "./http1/joined-writes.ts";
export { type HeaderValue, PreparedHeaders } from "./http1/prepared-headers.ts";
export { RawIngress, type RawIngressOptions } from "./http1/raw-ingress.ts";
export { RawRequest } from "./http1/raw-request.ts";
export { type FinishListener, RawResponse, type ResponseEnd } from "./http1/raw-response.ts";
export { type HeadReading, type RequestHead, readRequestHead } from "./http1/request-head.ts";
export {
  JsonShapeScanner,
  SHAPE_LIMITS,
  type ShapeLimits,
  type ShapeProblem,
  wholeBodyShapeProblem,
} from "./json-shape.ts";
export { type LiveEntry, LiveList } from "./live-list.ts";
export { logOutput, readByPerson } from "./log-output.ts";
export { noSchemaCompilers } from "./no-schema-compilers.ts";
export { readRegularFile, replaceRegularFile, UnsafeFileError } from "./regular-file.ts";
export { closest, didYouMean, editDistance } from "./suggest.ts";
export { asError, thrownMessage } from "./thrown.ts";
export { packageVersion } from "./version.ts";
