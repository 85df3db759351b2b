import { describe, expect, it } from "@effect/vitest"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import * as ApiErrors from "../../src/schema/ApiErrors.ts"
import { errorResponse } from "../../src/http/ErrorResponses.ts"

const { apiErrors, ErrorBody, isApiError } = ApiErrors
const tags = Object.keys(apiErrors) as Array<ApiErrors.ApiErrorTag>
type ErrorClass = (new(props?: { readonly message?: string }) => ApiErrors.ApiError) & {
  readonly wire: Schema.Schema<ApiErrors.ApiError, { readonly error: string; readonly message: string }>
}
const classOf = (tag: ApiErrors.ApiErrorTag) => (ApiErrors as unknown as Record<string, ErrorClass>)[tag]!

const bodyOf = (response: ReturnType<typeof errorResponse>) =>
  JSON.parse(new TextDecoder().decode((response.body as { readonly body: Uint8Array }).body))

describe("API errors, declared once in a table", () => {
  it("every row of the table is an exported tagged error class of that name", () => {
    for (const tag of tags) {
      const error = new (classOf(tag))({ message: "m" })
      expect(error._tag, tag).toBe(tag)
      expect(error).toBeInstanceOf(Error)
      expect(isApiError(error), tag).toBe(true)
    }
    expect(isApiError(new Error("plain"))).toBe(false)
    expect(isApiError({ _tag: "NotFound", message: "not an error" })).toBe(false)
  })

  it("an error answers with its row's status and code, and with its row's message when raised without one", () => {
    for (const tag of tags) {
      const { code, message, status } = apiErrors[tag]
      const given = errorResponse(new (classOf(tag))({ message: "what is wrong" }))
      expect(given.status, tag).toBe(status)
      expect(bodyOf(given), tag).toEqual({ error: code, message: "what is wrong" })
      expect(bodyOf(errorResponse(new (classOf(tag))())), tag).toEqual({ error: code, message })
    }
  })

  it("an error's wire schema is one object, carries its status, and reads and writes {error, message}", () => {
    for (const tag of tags) {
      const { code, status } = apiErrors[tag]
      const ErrorClass = classOf(tag)
      expect(ErrorClass.wire, tag).toBe(ErrorClass.wire)
      expect(HttpApiSchema.getStatusError(ErrorClass.wire), tag).toBe(status)
      expect(Schema.encodeSync(ErrorClass.wire)(new ErrorClass({ message: "m" })), tag).toEqual({ error: code, message: "m" })
      const decoded = Schema.decodeUnknownSync(ErrorClass.wire)({ error: code, message: "m" })
      expect(decoded, tag).toBeInstanceOf(ErrorClass)
      expect(() => Schema.decodeUnknownSync(ErrorClass.wire)({ error: `${code}_other`, message: "m" }), tag).toThrow()
    }
  })

  it("the document's Error shape lists every code of the table, and only those", () => {
    const literals = ErrorBody.fields.error.literals
    expect([...literals].sort()).toEqual(tags.map((tag) => apiErrors[tag].code).sort())
    expect(new Set(literals).size).toBe(literals.length)
  })
})
