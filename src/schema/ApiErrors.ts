import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"

/**
 * Every error of the JSON API. Each is a tagged error in code and `{error, message}` on the
 * wire; `ApiErrorWire` maps one to the other and carries the status.
 */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", { message: Schema.String }) {}
export class MissingFile extends Schema.TaggedError<MissingFile>()("MissingFile", { message: Schema.String }) {}
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { message: Schema.String }) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {}
export class GpxNotAvailable extends Schema.TaggedError<GpxNotAvailable>()("GpxNotAvailable", { message: Schema.String }) {}
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  message: Schema.String,
  allow: Schema.Array(Schema.String)
}) {}
export class ImportModeNotFiles extends Schema.TaggedError<ImportModeNotFiles>()("ImportModeNotFiles", { message: Schema.String }) {}
export class FileTooLarge extends Schema.TaggedError<FileTooLarge>()("FileTooLarge", { message: Schema.String }) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", { message: Schema.String }) {}
export class UnsupportedFileType extends Schema.TaggedError<UnsupportedFileType>()("UnsupportedFileType", { message: Schema.String }) {}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", { message: Schema.String }) {}
export class InsufficientStorage extends Schema.TaggedError<InsufficientStorage>()("InsufficientStorage", { message: Schema.String }) {}
export class OriginalNotAvailable extends Schema.TaggedError<OriginalNotAvailable>()("OriginalNotAvailable", { message: Schema.String }) {}
export class GearIsImported extends Schema.TaggedError<GearIsImported>()("GearIsImported", { message: Schema.String }) {}
export class FileImportStatusConflict extends Schema.TaggedError<FileImportStatusConflict>()("FileImportStatusConflict", { message: Schema.String }) {}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", { message: Schema.String }) {}
/** Too many wrong keys from the client's address: answered with `Retry-After`. */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}

export type ApiError =
  | InvalidToken
  | MissingFile
  | BadRequest
  | Forbidden
  | NotFound
  | GpxNotAvailable
  | MethodNotAllowed
  | ImportModeNotFiles
  | FileTooLarge
  | UnsupportedMediaType
  | UnsupportedFileType
  | PayloadTooLarge
  | InsufficientStorage
  | OriginalNotAvailable
  | GearIsImported
  | FileImportStatusConflict
  | TooManyRequests
  | InternalError

export const ERROR_CODES = [
  "invalid_token", "missing_file", "unsupported_media_type", "unsupported_file_type", "file_too_large",
  "import_mode_not_files", "gpx_not_available", "not_found", "method_not_allowed", "bad_request", "forbidden",
  "payload_too_large", "insufficient_storage", "original_not_available", "gear_is_imported", "file_import_status_conflict",
  "too_many_requests", "internal_error"
] as const

/** Wire code and HTTP status of each error. */
export const errorWire: { readonly [K in ApiError["_tag"]]: { readonly code: (typeof ERROR_CODES)[number]; readonly status: number } } = {
  InvalidToken: { code: "invalid_token", status: 401 },
  MissingFile: { code: "missing_file", status: 400 },
  BadRequest: { code: "bad_request", status: 400 },
  Forbidden: { code: "forbidden", status: 403 },
  NotFound: { code: "not_found", status: 404 },
  GpxNotAvailable: { code: "gpx_not_available", status: 404 },
  MethodNotAllowed: { code: "method_not_allowed", status: 405 },
  ImportModeNotFiles: { code: "import_mode_not_files", status: 409 },
  FileTooLarge: { code: "file_too_large", status: 413 },
  UnsupportedMediaType: { code: "unsupported_media_type", status: 415 },
  UnsupportedFileType: { code: "unsupported_file_type", status: 422 },
  PayloadTooLarge: { code: "payload_too_large", status: 413 },
  InsufficientStorage: { code: "insufficient_storage", status: 507 },
  OriginalNotAvailable: { code: "original_not_available", status: 404 },
  GearIsImported: { code: "gear_is_imported", status: 409 },
  FileImportStatusConflict: { code: "file_import_status_conflict", status: 409 },
  TooManyRequests: { code: "too_many_requests", status: 429 },
  InternalError: { code: "internal_error", status: 500 }
}

/** The answer to a write that failed because the disk (or the database file) is full. */
export const DISK_FULL_MESSAGE = "The disk is full: nothing was stored. Free some space on the server and try again."

export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && u._tag in errorWire &&
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
const wire = <A extends { readonly message: string }, I, R>(
  errorClass: Schema.Schema<A, I, R>,
  tag: ApiError["_tag"],
  make: (message: string) => A
) => {
  const { code, status } = errorWire[tag]
  const Body = Schema.Struct({
    error: Schema.Literal(code),
    message: Schema.String
  }).annotations({ identifier: `Error_${code}`, title: code })
  return Schema.transform(Body, Schema.typeSchema(errorClass), {
    strict: true,
    decode: ({ message }) => make(message),
    encode: (e) => ({ error: code, message: e.message }) as const
  }).annotations(HttpApiSchema.annotations({ status }))
}

export const InvalidTokenWire = wire(InvalidToken, "InvalidToken", (message) => new InvalidToken({ message }))
export const MissingFileWire = wire(MissingFile, "MissingFile", (message) => new MissingFile({ message }))
export const BadRequestWire = wire(BadRequest, "BadRequest", (message) => new BadRequest({ message }))
export const ForbiddenWire = wire(Forbidden, "Forbidden", (message) => new Forbidden({ message }))
export const NotFoundWire = wire(NotFound, "NotFound", (message) => new NotFound({ message }))
export const GpxNotAvailableWire = wire(GpxNotAvailable, "GpxNotAvailable", (message) => new GpxNotAvailable({ message }))
export const MethodNotAllowedWire = wire(MethodNotAllowed, "MethodNotAllowed", (message) => new MethodNotAllowed({ message, allow: [] }))
export const ImportModeNotFilesWire = wire(ImportModeNotFiles, "ImportModeNotFiles", (message) => new ImportModeNotFiles({ message }))
export const FileTooLargeWire = wire(FileTooLarge, "FileTooLarge", (message) => new FileTooLarge({ message }))
export const UnsupportedMediaTypeWire = wire(UnsupportedMediaType, "UnsupportedMediaType", (message) => new UnsupportedMediaType({ message }))
export const UnsupportedFileTypeWire = wire(UnsupportedFileType, "UnsupportedFileType", (message) => new UnsupportedFileType({ message }))
export const PayloadTooLargeWire = wire(PayloadTooLarge, "PayloadTooLarge", (message) => new PayloadTooLarge({ message }))
export const InsufficientStorageWire = wire(InsufficientStorage, "InsufficientStorage", (message) => new InsufficientStorage({ message }))
export const OriginalNotAvailableWire = wire(OriginalNotAvailable, "OriginalNotAvailable", (message) => new OriginalNotAvailable({ message }))
export const GearIsImportedWire = wire(GearIsImported, "GearIsImported", (message) => new GearIsImported({ message }))
export const FileImportStatusConflictWire = wire(FileImportStatusConflict, "FileImportStatusConflict", (message) => new FileImportStatusConflict({ message }))
export const TooManyRequestsWire = wire(TooManyRequests, "TooManyRequests", (message) => new TooManyRequests({ message, retryAfterSeconds: 0 }))
export const InternalErrorWire = wire(InternalError, "InternalError", (message) => new InternalError({ message }))
