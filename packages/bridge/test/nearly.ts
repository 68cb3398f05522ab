// Property tests of inbound reading feed fields that are nearly right: mostly of their type, sometimes any JSON.
import fc from "fast-check";

/** The field's right type, or any JSON in its place. */
export function nearly<T>(right: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: right }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
}
