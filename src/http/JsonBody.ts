import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, ParseResult, Schema } from "effect"
import { BadRequest, UnsupportedMediaType } from "../schema/ApiErrors.ts"

/**
 * Reads a JSON object body with the messages of the 400 and 415 answers. Its size is already
 * bounded: the body-limit middleware read it within MAX_JSON_BODY (413 past that).
 */

export const NOT_AN_OBJECT = "The request body must be a valid JSON object."

export const isJsonContentType = (request: HttpServerRequest.HttpServerRequest) => {
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type)
}

export const readJsonObject = (
  request: HttpServerRequest.HttpServerRequest,
  options: { readonly onWrongContentType: "badRequest" | "unsupportedMediaType" }
) =>
  Effect.gen(function*() {
    if (!isJsonContentType(request)) {
      return yield* options.onWrongContentType === "unsupportedMediaType"
        ? new UnsupportedMediaType({ message: "Send the body as application/json." })
        : new BadRequest({ message: `${NOT_AN_OBJECT} Send it as application/json.` })
    }
    const bytes = yield* request.arrayBuffer.pipe(Effect.mapError(() => new BadRequest({ message: NOT_AN_OBJECT })))
    let text: string
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    } catch {
      return yield* new BadRequest({ message: `${NOT_AN_OBJECT} It is not valid UTF-8.` })
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return yield* new BadRequest({ message: NOT_AN_OBJECT })
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) return yield* new BadRequest({ message: NOT_AN_OBJECT })
    return value as Record<string, unknown>
  })

/** How much of a client's field names an answer repeats. */
const MAX_NAMED_FIELDS = 10
const MAX_FIELD_NAME = 64

/** 400 naming the fields that are not allowed (the first few, each cut short). */
export const rejectUnknownFields = (body: Record<string, unknown>, allowed: ReadonlyArray<string>) => {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k))
  if (unknown.length === 0) return Effect.void
  const named = unknown.slice(0, MAX_NAMED_FIELDS).map((k) => (k.length > MAX_FIELD_NAME ? `${k.slice(0, MAX_FIELD_NAME)}…` : k))
  const more = unknown.length > MAX_NAMED_FIELDS ? ` and ${unknown.length - MAX_NAMED_FIELDS} more` : ""
  return Effect.fail(new BadRequest({ message: `Unknown field(s): ${named.join(", ")}${more}. Allowed: ${allowed.join(", ")}.` }))
}

/**
 * Decodes a body read by `readJsonObject` with the schema its endpoint declares: fields not in
 * the schema are refused by name, and the first problem becomes the 400 message.
 */
export const decodeBody = <Fields extends Schema.Struct.Fields>(schema: Schema.Struct<Fields>) => {
  const decode = Schema.decodeUnknown(schema, { errors: "first" })
  const allowed = Object.keys(schema.fields)
  return (body: Record<string, unknown>) =>
    rejectUnknownFields(body, allowed).pipe(
      Effect.zipRight(decode(body)),
      Effect.catchTag("ParseError", (error) =>
        Effect.fail(new BadRequest({ message: ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? NOT_AN_OBJECT }))
      )
    )
}
