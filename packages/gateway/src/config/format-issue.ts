import type { z } from "zod";
import { closest } from "./suggest.ts";

type Path = readonly PropertyKey[];

/** `backends[1].type` from zod's path array. */
export function formatPath(path: Path): string {
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
export function allowedKeys(schema: unknown, path: Path): string[] {
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

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "a table";
  return String(value);
}

function valueAt(input: unknown, path: Path): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== "object") return undefined;
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
      return `${where}: ${describe(got)} is not allowed${hint}; allowed: ${values.join(", ")}`;
    }
    case "invalid_type": {
      if (got === undefined) return `${where}: is required (${typeNames[issue.expected] ?? issue.expected})`;
      return `${where}: expected ${typeNames[issue.expected] ?? issue.expected}, got ${describe(got)}`;
    }
    case "too_small":
      return `${where}: ${describe(got)} is too small; minimum ${String(issue.minimum)}${issue.origin === "string" ? " characters" : ""}`;
    case "too_big":
      return `${where}: ${describe(got)} is too large; maximum ${String(issue.maximum)}`;
    case "invalid_format":
      return `${where}: ${describe(got)} is not a valid ${issue.format === "url" ? "http:// or https:// URL" : issue.format}`;
    default:
      return `${where}: ${issue.message}`;
  }
}
