import { closest } from "@switchboard/common";
import { TomlDate } from "smol-toml";
import type { z } from "zod";

type Path = readonly PropertyKey[];

/** `backends[1].type` from zod's path array. */
function formatPath(path: Path): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out || "(top level)";
}

interface SchemaNode {
  def: {
    type: string;
    shape?: Record<string, SchemaNode>;
    innerType?: SchemaNode;
    element?: SchemaNode;
    out?: SchemaNode;
  };
}

/** The keys allowed at `path` in `schema` (for "did you mean" on unknown keys). */
function allowedKeys(schema: unknown, path: Path): string[] {
  let node = schema as SchemaNode | undefined;
  const unwrap = () => {
    while (node) {
      const def: SchemaNode["def"] = node.def;
      if (def.innerType) node = def.innerType;
      else if (def.type === "pipe" && def.out) node = def.out;
      else break;
    }
  };
  for (const segment of path) {
    unwrap();
    if (!node) return [];
    if (typeof segment === "number") node = node.def.element;
    else node = node.def.shape?.[String(segment)];
  }
  unwrap();
  return node?.def.shape ? Object.keys(node.def.shape) : [];
}

/** What kind of TOML value this is, never the value itself (a misplaced key must not be echoed). */
function kindOf(value: unknown): string {
  if (typeof value === "string") return "a string";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "nan (not a number)";
    if (value === Number.POSITIVE_INFINITY) return "infinity";
    if (value === Number.NEGATIVE_INFINITY) return "-infinity";
    return Number.isInteger(value) ? "an integer" : "a number";
  }
  if (typeof value === "boolean") return "a boolean";
  if (value instanceof TomlDate) return value.isTime() ? "a time" : value.isDate() ? "a date" : "a date-time";
  if (value instanceof Date) return "a date-time";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return "a table";
}

/** A number as TOML writes it (inf, nan), for range errors; other values by their kind. */
function describeNumber(value: unknown): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return kindOf(value);
  return String(value);
}

/** A URL with any credentials and query (where keys live) masked. */
function maskUrl(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/, "//***@").replace(/\?.*$/, "?***");
}

function valueAt(input: unknown, path: Path): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== "object") return undefined;
    if (value instanceof Map) {
      value = value.get(segment);
      continue;
    }
    if (!Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

const typeNames: Record<string, string> = {
  object: "a table",
  array: "an array",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  record: "a table",
  map: "a table",
};

/** One zod issue as "key: what is wrong; what is allowed". */
export function formatIssue(issue: z.core.$ZodIssue, schema: unknown, input: unknown): string {
  const where = formatPath(issue.path);
  const got = valueAt(input, issue.path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const key = issue.keys[0] ?? "";
      const full = formatPath([...issue.path, key]);
      const allowed = allowedKeys(schema, issue.path);
      const guess = closest(key, allowed);
      const hint = guess ? `did you mean "${guess}"?` : `allowed keys: ${allowed.join(", ")}`;
      return `${full}: unknown key; ${hint}`;
    }
    case "invalid_value": {
      const values = issue.values.map((v) => String(v));
      const guess = typeof got === "string" ? closest(got, values) : undefined;
      const hint = guess ? ` (did you mean "${guess}"?)` : "";
      // Enum values are short words (types, strategies), echoed so that the typo is visible.
      const shown = typeof got === "string" && got.length <= 40 ? JSON.stringify(got) : kindOf(got);
      return `${where}: ${shown} is not allowed${hint}; allowed: ${values.join(", ")}`;
    }
    case "invalid_type": {
      if (got === undefined) return `${where}: is required (${typeNames[issue.expected] ?? issue.expected})`;
      return `${where}: expected ${typeNames[issue.expected] ?? issue.expected}, got ${kindOf(got)}`;
    }
    case "too_small":
      if (issue.origin === "string") return `${where}: must not be empty`;
      return `${where}: ${describeNumber(got)} is too small; minimum ${String(issue.minimum)}`;
    case "too_big":
      return `${where}: ${describeNumber(got)} is too large; maximum ${String(issue.maximum)}`;
    case "invalid_format": {
      const shown = typeof got === "string" ? JSON.stringify(maskUrl(got)) : kindOf(got);
      return `${where}: ${shown} is not a valid ${issue.format === "url" ? "http:// or https:// URL" : issue.format}`;
    }
    default:
      return `${where}: ${issue.message}`;
  }
}
