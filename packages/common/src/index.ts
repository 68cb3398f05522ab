export { type DirectInfoLines, directInfoLines, jsonNumber } from "./direct-log-line.ts";
export { JsonShapeScanner, SHAPE_LIMITS, type ShapeLimits, type ShapeProblem } from "./json-shape.ts";
export { logOutput, readByPerson } from "./log-output.ts";
export { noSchemaCompilers } from "./no-schema-compilers.ts";
export { closest, didYouMean, editDistance } from "./suggest.ts";
export { packageVersion } from "./version.ts";
