import type { CompiledSchema } from "../schema";

export interface SchemaPayload {
  readonly attributes: CompiledSchema["attributes"];
  readonly facets: CompiledSchema["facets"];
  readonly classes: CompiledSchema["classes"];
  readonly extensions: CompiledSchema["extensions"];
  readonly quarantined: CompiledSchema["quarantined"];
}

/** GET /api/schema: the compiled record arrays, each already sorted by name. */
export function renderSchema(schema: CompiledSchema): SchemaPayload {
  return {
    attributes: schema.attributes.map((a) => ({
      id: a.id,
      name: a.name,
      syntax: a.syntax,
      singleValued: a.singleValued,
      matching: a.matching,
      aliases: [...a.aliases],
      legalMeta: [...a.legalMeta],
    })),
    facets: schema.facets.map((f) => ({ id: f.id, name: f.name, attributes: f.attributes.map((m) => ({ ...m })) })),
    classes: schema.classes.map((c) => ({
      id: c.id,
      name: c.name,
      dnPrefix: c.dnPrefix,
      instantiable: c.instantiable,
      facets: [...c.facets],
    })),
    extensions: schema.extensions.map((e) => ({ id: e.id, name: e.name, targetClass: e.targetClass, facets: [...e.facets] })),
    quarantined: schema.quarantined.map((q) => ({ ...q })),
  };
}
