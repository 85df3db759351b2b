import type * as OpenApi from "@effect/platform/OpenApi"

/**
 * Final touches on the generated OpenAPI document: the framework's own decode-error shape
 * never reaches a client (bad input answers `{error: "bad_request", message}`), so it is
 * replaced by ours, and schemas no longer referenced are dropped.
 */
const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

type Json = unknown

const mapDeep = (value: Json, f: (node: Record<string, Json>) => Json): Json => {
  if (Array.isArray(value)) return value.map((v) => mapDeep(v, f))
  if (value !== null && typeof value === "object") {
    const mapped: Record<string, Json> = {}
    for (const [k, v] of Object.entries(value)) mapped[k] = mapDeep(v, f)
    return f(mapped)
  }
  return value
}

const referencesDecodeError = (schema: Json): boolean => JSON.stringify(schema ?? null).includes(DECODE_ERROR_REF)

const withoutDecodeError = (schema: Record<string, Json>): Record<string, Json> | undefined => {
  if (schema.$ref === DECODE_ERROR_REF) return undefined
  if (Array.isArray(schema.anyOf)) {
    const rest = (schema.anyOf as Array<Record<string, Json>>).filter((s) => s.$ref !== DECODE_ERROR_REF)
    if (rest.length === 0) return undefined
    return rest.length === 1 ? rest[0]! : { ...schema, anyOf: rest }
  }
  return schema
}

const collectRefs = (value: Json, into: Set<string>) => {
  mapDeep(value, (node) => {
    if (typeof node.$ref === "string") into.add(node.$ref.replace("#/components/schemas/", ""))
    return node
  })
}

export const rewriteOpenApi = (spec: Record<string, Json>): Record<string, Json> => {
  const doc = structuredClone(spec) as OpenApi.OpenAPISpec & Record<string, Json>
  for (const pathItem of Object.values(doc.paths)) {
    for (const op of Object.values(pathItem) as Array<OpenApi.OpenAPISpecOperation>) {
      // an empty operation-level list would override the document-wide bearer requirement
      if (op.security.length === 0) delete (op as { security?: unknown }).security
      const bad = op.responses[400]
      if (bad?.content === undefined) continue
      const json = bad.content["application/json"]
      if (json === undefined || !referencesDecodeError(json.schema)) continue
      const rest = withoutDecodeError(json.schema as unknown as Record<string, Json>)
      // bad input of an endpoint that declares no 400 of its own cannot happen (string parameters only)
      if (rest === undefined) delete op.responses[400]
      else json.schema = rest as unknown as typeof json.schema
    }
  }
  // keep only the schemas still referenced (transitively), plus the shared Error shape
  const schemas = doc.components.schemas as Record<string, Json>
  const keep = new Set<string>(["Error"])
  collectRefs(doc.paths, keep)
  let size = -1
  while (size !== keep.size) {
    size = keep.size
    for (const name of [...keep]) collectRefs(schemas[name], keep)
  }
  for (const name of Object.keys(schemas)) if (!keep.has(name)) delete schemas[name]
  return doc
}
