import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, ParseResult, Schema } from "effect"
import { BadRequest, UnsupportedMediaType } from "../schema/ApiErrors.ts"

/** Reads a small JSON object body, answering 400 or 415 with a message that says what is wrong. */

export const MAX_JSON_BODY = 64 * 1024
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
    const declared = Number(request.headers["content-length"] ?? NaN)
    if (Number.isFinite(declared) && declared > MAX_JSON_BODY) {
      return yield* new BadRequest({ message: "The request body is too large." })
    }
    const bytes = yield* request.arrayBuffer.pipe(Effect.mapError(() => new BadRequest({ message: NOT_AN_OBJECT })))
    if (bytes.byteLength > MAX_JSON_BODY) return yield* new BadRequest({ message: "The request body is too large." })
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

/** 400 naming the fields that are not allowed. */
export const rejectUnknownFields = (body: Record<string, unknown>, allowed: ReadonlyArray<string>) => {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k))
  return unknown.length > 0
    ? Effect.fail(new BadRequest({ message: `Unknown field(s): ${unknown.join(", ")}. Allowed: ${allowed.join(", ")}.` }))
    : Effect.void
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
