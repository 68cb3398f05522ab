export { logOutput, readByPerson } from "./log-output.ts";
export { closest, didYouMean, editDistance } from "./suggest.ts";
export { packageVersion } from "./version.ts";
