import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/**
 * The first part of `ast` whose JSON form differs from its type (a transformation, or a
 * declared type the framework encodes its own way); undefined when the schema encodes as itself.
 */
export const transformationIn = (ast: AST.AST, seen: Set<AST.AST> = new Set()): string | undefined => {
  if (seen.has(ast)) return undefined
  seen.add(ast)
  switch (ast._tag) {
    case "Transformation":
    case "Declaration":
      return `${ast._tag} ${String(ast)}`
    case "Refinement":
      return transformationIn(ast.from, seen)
    case "Suspend":
      return transformationIn(ast.f(), seen)
    case "Union":
      return firstOf(ast.types, seen)
    case "TupleType":
      return firstOf([...ast.elements.map((e) => e.type), ...ast.rest.map((r) => r.type)], seen)
    case "TypeLiteral":
      return firstOf([...ast.propertySignatures.map((p) => p.type), ...ast.indexSignatures.map((i) => i.type)], seen)
    default:
      return undefined
  }
}

const firstOf = (asts: ReadonlyArray<AST.AST>, seen: Set<AST.AST>) => {
  for (const ast of asts) {
    const found = transformationIn(ast, seen)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * 200 JSON responses of `schema` without the framework's encoding of each response through the
 * schema (a walk of every field of every row on each request, most of the cost of a list). Sound
 * for a schema whose type is its JSON form (refinements, literals, structs, no transformation),
 * which is checked here, once: the value is then serialised as it is. The values must be built
 * in the schema's field order and without fields the schema lacks, as `Schema.encode` gives
 * them (an Activity is: its schema and its row reader follow from ActivityFields, in one order);
 * the tests of each response compare the two.
 */
export const jsonResponder = <A>(schema: Schema.Schema<A, A, never>) => {
  const encode = jsonEncoder(schema)
  return (value: A): HttpServerResponse.HttpServerResponse => jsonResponse(encode(value))
}

/** The JSON text of values of `schema`, on the terms of `jsonResponder` (checked once, here). */
export const jsonEncoder = <A>(schema: Schema.Schema<A, A, never>) => {
  const problem = transformationIn(schema.ast)
  if (problem !== undefined) throw new Error(`jsonResponder needs a schema that encodes as itself; ${String(schema.ast)} holds ${problem}`)
  return (value: A): string => JSON.stringify(value)
}

/** 200 with a JSON text: the status and headers of `HttpServerResponse.unsafeJson`. */
export const jsonResponse = (text: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(text, { contentType: "application/json" })
