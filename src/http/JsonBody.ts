import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { BadRequest, UnsupportedMediaType } from "../schema/ApiErrors.ts"
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../schema/JsonDepth.ts"

export { MAX_JSON_DEPTH, nestedDeeperThan }

/**
 * Reads a JSON object body with the messages of the 400 and 415 answers. Its size is already
 * bounded: the body-limit middleware read it within MAX_JSON_BODY (413 past that); its depth
 * is bounded here, before it is parsed, so that nothing recursive (a schema's error message
 * formatting the value, a log line) ever walks a value nested thousands deep.
 */

export const NOT_AN_OBJECT = "The request body must be a valid JSON object."

export const TOO_DEEP = `The request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are accepted.`

/** The value of a JSON body, or why it is refused (the message of a 400). */
export const parseJsonBody = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string } => {
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) return { ok: false, message: TOO_DEEP }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false, message: NOT_AN_OBJECT }
  }
}

/** Longest message a 400 answer repeats from a schema (it may quote the client's value). */
const MAX_MESSAGE_LENGTH = 300

const bounded = (message: string) => (message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message)

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
    const parsed = parseJsonBody(text)
    if (!parsed.ok) return yield* new BadRequest({ message: parsed.message })
    const value = parsed.value
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
        Effect.fail(new BadRequest({ message: bounded(ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? NOT_AN_OBJECT) }))
      )
    )
}

/** A JSON object body, or an empty one for a request that sends none (a service done today, a link with the default choices). */
export const optionalJsonObject = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["content-type"] !== undefined
    ? readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
    : Effect.flatMap(
      Effect.mapError(request.arrayBuffer, () => new BadRequest({ message: "The request body could not be read." })),
      (bytes): Effect.Effect<Record<string, unknown>, UnsupportedMediaType> =>
        bytes.byteLength === 0 ? Effect.succeed({}) : Effect.fail(new UnsupportedMediaType({ message: "Send the body as application/json." }))
    )
