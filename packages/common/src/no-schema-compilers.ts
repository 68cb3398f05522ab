/**
 * fastify's `schemaController.compilersFactory` for a server whose routes declare no JSON schema (they validate their
 * bodies themselves): fastify then never loads its default compilers, ajv and fast-json-stringify, about 25 ms of a
 * service's start-up. A route that does declare a schema fails at registration with this message, so the change it
 * needs is plain.
 */
export function noSchemaCompilers(where: string): {
  buildValidator: () => () => never;
  buildSerializer: () => () => never;
} {
  const refuse = (): never => {
    throw new Error(
      `${where} loads no JSON-schema compiler: its routes validate their input themselves. ` +
        "A route with a schema needs fastify's default compilers back (remove schemaController there).",
    );
  };
  return { buildValidator: () => refuse, buildSerializer: () => refuse };
}
