import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import type * as Cause from "effect/Cause"
import * as Schema from "effect/Schema"

/**
 * Every error of the JSON API, declared once: its HTTP status, its stable code on the wire
 * (`{error: "<code>", message}`), and the message it answers with when the code raising it has
 * nothing more precise to say. The tagged error classes, the `ApiError` union, the wire schemas
 * that the HttpApi declares (and the OpenAPI document lists) and the answers all read this table.
 * Its order is the order of the codes in the document's `Error` schema.
 */
export const apiErrors = {
  InvalidToken: { status: 401, code: "invalid_token", message: "The API token is not valid." },
  MissingFile: { status: 400, code: "missing_file", message: 'A "file" part is required.' },
  UnsupportedMediaType: { status: 415, code: "unsupported_media_type", message: "The request body's media type is not accepted here." },
  UnsupportedFileType: { status: 422, code: "unsupported_file_type", message: "The file type is not supported." },
  FileTooLarge: { status: 413, code: "file_too_large", message: "The uploaded file is too large." },
  ImportModeNotFiles: { status: 409, code: "import_mode_not_files", message: "Files can only be imported when running in file import mode." },
  GpxNotAvailable: { status: 404, code: "gpx_not_available", message: "The activity has no GPS or time data to export as GPX." },
  NotFound: { status: 404, code: "not_found", message: "Not found." },
  MethodNotAllowed: {
    status: 405,
    code: "method_not_allowed",
    message: "The method is not allowed here.",
    // the methods the path does allow, sent as `Allow`
    fields: { allow: Schema.Array(Schema.String).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => [])) }
  },
  BadRequest: { status: 400, code: "bad_request", message: "The request could not be processed." },
  Forbidden: { status: 403, code: "forbidden", message: "This is not allowed." },
  PayloadTooLarge: { status: 413, code: "payload_too_large", message: "The request body is too large." },
  InsufficientStorage: {
    status: 507,
    code: "insufficient_storage",
    message: "The disk is full: nothing was stored. Free some space on the server and try again."
  },
  OriginalNotAvailable: { status: 404, code: "original_not_available", message: "The activity has no original file." },
  GearIsImported: { status: 409, code: "gear_is_imported", message: "The gear is imported: it can only be retired." },
  FileImportStatusConflict: { status: 409, code: "file_import_status_conflict", message: "The file import is not in a state that allows this." },
  TooManyRequests: {
    status: 429,
    code: "too_many_requests",
    message: "Too many wrong keys from this address.",
    // too many wrong keys from the client's address: answered with `Retry-After`
    fields: { retryAfterSeconds: Schema.Number.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => 0)) }
  },
  InternalError: { status: 500, code: "internal_error", message: "Something went wrong." }
} as const satisfies Record<string, ApiErrorSpec>

interface ApiErrorSpec {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly fields?: Schema.Struct.Fields
}

export type ApiErrorTag = keyof typeof apiErrors
type Spec<T extends ApiErrorTag> = (typeof apiErrors)[T]
type ExtraFields<T extends ApiErrorTag> = Spec<T> extends { readonly fields: infer F extends Schema.Struct.Fields } ? F : {}
type ErrorFields<T extends ApiErrorTag> = { readonly message: Schema.PropertySignature<":", string, never, ":", string, true, never> } & ExtraFields<T>

/** One API error in code: a tagged error with the table's fields. */
export type ApiErrorOf<T extends ApiErrorTag> = Cause.YieldableError & { readonly _tag: T } & Schema.Struct.Type<ErrorFields<T>>
export type ApiError = { readonly [T in ApiErrorTag]: ApiErrorOf<T> }[ApiErrorTag]
type ErrorCode = Spec<ApiErrorTag>["code"]

const ERROR_CODES = Object.values(apiErrors).map((spec) => spec.code) as [ErrorCode, ...Array<ErrorCode>]

export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && Object.hasOwn(apiErrors, u._tag) &&
  u instanceof Error

/** The error body every failing request answers with, as it appears in the OpenAPI document. */
export const ErrorBody = Schema.Struct({
  error: Schema.Literal(...ERROR_CODES).annotations({ description: "Stable error code" }),
  message: Schema.String.annotations({ description: "Human-readable explanation" })
}).annotations({ identifier: "Error", description: "Every API error has this shape" })

/**
 * The declared (OpenAPI) form of an error class: `{error: "<code>", message}` on the wire,
 * the tagged error in code, with its status.
 */
const wireOf = <Self extends { readonly message: string }, Tag extends ApiErrorTag>(
  errorClass: Schema.Schema<Self, any, never> & (new(props: { readonly message: string }) => Self),
  tag: Tag
): Schema.Schema<Self, { readonly error: Spec<Tag>["code"]; readonly message: string }> => {
  const { code, status } = apiErrors[tag]
  const Body = Schema.Struct({
    error: Schema.Literal(code),
    message: Schema.String
  }).annotations({ identifier: `Error_${code}`, title: code })
  return Schema.transform(Body, Schema.typeSchema(errorClass), {
    strict: true,
    decode: ({ message }) => new errorClass({ message }),
    encode: (e) => ({ error: code, message: e.message }) as const
  }).annotations(HttpApiSchema.annotations({ status }))
}

/**
 * The tagged error class of one row of the table: `class NotFound extends
 * ApiErrorClass<NotFound>()("NotFound") {}`. Its `wire` is the schema an endpoint declares
 * (`.addError(NotFound.wire)`), one per class so that every endpoint shares it. The message may
 * be left out: the table's is used.
 */
export const ApiErrorClass = <Self>() =>
<Tag extends ApiErrorTag>(
  tag: Tag
): Schema.TaggedErrorClass<Self, Tag, { readonly _tag: Schema.tag<Tag> } & ErrorFields<Tag>> & {
  readonly wire: Schema.Schema<Self, { readonly error: Spec<Tag>["code"]; readonly message: string }>
} => {
  const spec: ApiErrorSpec = apiErrors[tag]
  const fields = {
    message: Schema.String.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => spec.message)),
    ...spec.fields
  }
  let wire: Schema.Schema.Any | undefined
  return class extends Schema.TaggedError<{ readonly message: string }>()(tag, fields) {
    static get wire() {
      return wire ??= wireOf(this, tag)
    }
  } as never
}

export class InvalidToken extends ApiErrorClass<InvalidToken>()("InvalidToken") {}
export class MissingFile extends ApiErrorClass<MissingFile>()("MissingFile") {}
export class UnsupportedMediaType extends ApiErrorClass<UnsupportedMediaType>()("UnsupportedMediaType") {}
export class UnsupportedFileType extends ApiErrorClass<UnsupportedFileType>()("UnsupportedFileType") {}
export class FileTooLarge extends ApiErrorClass<FileTooLarge>()("FileTooLarge") {}
export class ImportModeNotFiles extends ApiErrorClass<ImportModeNotFiles>()("ImportModeNotFiles") {}
export class GpxNotAvailable extends ApiErrorClass<GpxNotAvailable>()("GpxNotAvailable") {}
export class NotFound extends ApiErrorClass<NotFound>()("NotFound") {}
export class MethodNotAllowed extends ApiErrorClass<MethodNotAllowed>()("MethodNotAllowed") {}
export class BadRequest extends ApiErrorClass<BadRequest>()("BadRequest") {}
export class Forbidden extends ApiErrorClass<Forbidden>()("Forbidden") {}
export class PayloadTooLarge extends ApiErrorClass<PayloadTooLarge>()("PayloadTooLarge") {}
export class InsufficientStorage extends ApiErrorClass<InsufficientStorage>()("InsufficientStorage") {}
export class OriginalNotAvailable extends ApiErrorClass<OriginalNotAvailable>()("OriginalNotAvailable") {}
export class GearIsImported extends ApiErrorClass<GearIsImported>()("GearIsImported") {}
export class FileImportStatusConflict extends ApiErrorClass<FileImportStatusConflict>()("FileImportStatusConflict") {}
export class TooManyRequests extends ApiErrorClass<TooManyRequests>()("TooManyRequests") {}
export class InternalError extends ApiErrorClass<InternalError>()("InternalError") {}
