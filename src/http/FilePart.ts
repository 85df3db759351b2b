import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as NodeMultipart from "@effect/platform-node/NodeMultipart"
import { Effect, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import {
  FileTooLarge,
  type InsufficientStorage,
  InternalError,
  MissingFile,
  UnsupportedFileType,
  UnsupportedMediaType
} from "../schema/ApiErrors.ts"
import { MAX_IMPORT_FILE_BYTES } from "../services/import/ImportService.ts"
import { diskFull, isDiskFull } from "./DiskFull.ts"

/**
 * Reads the `file` part of a multipart/form-data request straight to disk, enforcing the
 * limits while the bytes arrive: a request declared larger than the post limit is refused
 * before its body is read, and a file that grows past the file limit is cut off and removed.
 */

export interface ReceivedFile {
  /** the client's file name, as sent */
  readonly name: string
  /** where the bytes are now (a temporary file the caller moves or deletes) */
  readonly tempPath: string
  readonly size: number
  /** the first bytes of the file, for content sniffing */
  readonly head: Uint8Array
}

/**
 * The size limits of one upload route, named after the settings that raise them. `watchFolder`
 * when the route takes activity files, which can be copied into the watch folder instead.
 */
export interface UploadLimits {
  readonly maxFileSize: number
  readonly maxPostSize: number
  readonly watchFolder: boolean
}

export interface FilePartOptions extends UploadLimits {
  /** folder of the temporary file */
  readonly tempDir: string
  /** checks the client's file name before any byte is written */
  readonly checkName: (name: string) => Effect.Effect<void, UnsupportedFileType>
}

/** A size as the settings are written: 20 MB, 512 KB (one decimal at most). */
const sizeText = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`
    : bytes >= 1024
    ? `${Number((bytes / 1024).toFixed(1))} KB`
    : `${bytes} bytes`

/**
 * The 413 of an upload over `over`: the file's own limit or the whole request's. It names the
 * limit and the setting that raises it, and for activity files the watch folder, where a file
 * is read from disk and only the import's own bound applies.
 */
export const tooLarge = (limits: UploadLimits, over: "file" | "request") => {
  const stated = over === "file"
    ? `The uploaded file is too large: at most ${sizeText(limits.maxFileSize)} is accepted (UPLOAD_MAX_FILESIZE).`
    : `The upload is too large: at most ${sizeText(limits.maxPostSize)} is accepted per request (POST_MAX_SIZE), ${
      sizeText(limits.maxFileSize)
    } per file (UPLOAD_MAX_FILESIZE).`
  const setting = over === "file" ? "UPLOAD_MAX_FILESIZE" : "POST_MAX_SIZE"
  const watch = limits.watchFolder && MAX_IMPORT_FILE_BYTES > Math.min(limits.maxFileSize, limits.maxPostSize)
    ? `, or copy the file into the watch folder (WATCH_DIR), which imports files up to ${sizeText(MAX_IMPORT_FILE_BYTES)}`
    : ""
  return new FileTooLarge({ message: `${stated} Raise ${setting} in the service's settings${watch}.` })
}

const MISSING_FILE_MESSAGE = 'A "file" part is required.'

/**
 * 415, 413 and 400 checks that need only the headers. A multipart body without a boundary,
 * or with no bytes at all, is refused here: the parser never finishes on those (it throws
 * outside the stream on a missing boundary, and waits forever on an empty body).
 */
export const checkMultipartHeaders = (request: HttpServerRequest.HttpServerRequest, limits: UploadLimits) =>
  Effect.gen(function*() {
    const contentType = (request.headers["content-type"] ?? "").toLowerCase()
    if (!contentType.startsWith("multipart/form-data")) {
      return yield* new UnsupportedMediaType({ message: "Send the file as multipart/form-data." })
    }
    const declared = Number(request.headers["content-length"] ?? NaN)
    if (Number.isFinite(declared) && declared > limits.maxPostSize) return yield* tooLarge(limits, "request")
    if (!/;\s*boundary=("[^"]+"|[^\s;]+)/i.test(request.headers["content-type"] ?? "")) {
      return yield* new MissingFile({ message: `The multipart/form-data body has no boundary: ${MISSING_FILE_MESSAGE}` })
    }
    if (declared === 0 || (request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined)) {
      return yield* new MissingFile({ message: `The request body is empty: ${MISSING_FILE_MESSAGE}` })
    }
  })

/**
 * Unquotes a parameter value. Backslashes stay (browsers send Windows paths unescaped, and
 * the name checks must see them); only an escaped quote is unescaped.
 */
const unquote = (value: string) => value.startsWith('"') ? value.slice(1, -1).replaceAll('\\"', '"') : value

/**
 * Field name and file name of a part, read from its raw Content-Disposition header. The
 * multipart parser drops the whole header (name included) when the file name has a character
 * above U+00FF or bytes that are not UTF-8, which would turn a legitimate name such as
 * "Rit – été 🚴.fit" into a missing part; the raw header keeps the name (invalid bytes show
 * as U+FFFD, which the name checks refuse).
 */
export const partNames = (part: Multipart.File): { readonly key: string; readonly name: string } => {
  let raw: string | undefined
  try {
    const headers = (NodeMultipart.fileToReadable(part) as { info?: { headers?: Record<string, string> } }).info?.headers
    raw = headers?.["content-disposition"]
  } catch {
    raw = undefined
  }
  if (raw === undefined) return { key: part.key, name: part.name }
  const param = (key: string) => {
    const match = new RegExp(`;\\s*${key}\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|[^;]*)`, "i").exec(raw!)
    return match === null ? undefined : unquote(match[1]!.trim())
  }
  const extended = param("filename\\*")
  let name = param("filename")
  if (extended !== undefined) {
    const match = /^utf-8'[^']*'(.*)$/i.exec(extended)
    if (match) {
      try {
        name = decodeURIComponent(match[1]!)
      } catch {
        name = "\uFFFD"
      }
    }
  }
  return { key: param("name") ?? part.key, name: name ?? part.name }
}

const HEAD_BYTES = 64

const writeAll = (fd: number, chunk: Uint8Array) => {
  let written = 0
  while (written < chunk.length) written += fs.writeSync(fd, chunk, written)
}

/** A parser failure as the multipart parser (multipasta) reports it. */
interface ParserFailure {
  readonly _tag: string
  readonly limit?: string
  readonly error?: { readonly reason?: string }
}

/**
 * The parts of a multipart request. The Node parser reports some failures (a part header it
 * cannot read, a body that ends early, a limit reached between files) only as an `error`
 * event that the platform stream ignores: the part silently disappears. The request body is
 * handed to the parser through our own stream so that those events are seen; `failure()`
 * returns the first one. `ended` completes once the whole request body has arrived.
 */
const multipartParts = (request: HttpServerRequest.HttpServerRequest) => {
  let failure: ParserFailure | undefined
  try {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const source = new PassThrough()
    const pipe = source.pipe.bind(source)
    source.pipe = ((destination: NodeJS.WritableStream, opts?: { end?: boolean }) => {
      ;(destination as unknown as NodeJS.EventEmitter).on("error", (e: ParserFailure) => {
        failure ??= e
      })
      return pipe(destination, opts)
    }) as typeof source.pipe
    // a client that breaks off the upload makes the request emit `error` (ECONNRESET); piped
    // on, it must land on a listener, or it is thrown out of the event loop and stops the process
    incoming.on("error", (e) => source.destroy(e))
    source.on("error", (e: ParserFailure) => {
      failure ??= e
    })
    incoming.pipe(source)
    const ended = Effect.async<void, MissingFile>((resume) => {
      if (incoming.readableEnded) return resume(Effect.void)
      const onEnd = () => resume(Effect.void)
      const onClose = () => {
        if (!incoming.readableEnded) resume(Effect.fail(new MissingFile({ message: `The request body was cut off: ${MISSING_FILE_MESSAGE}` })))
      }
      incoming.once("end", onEnd)
      incoming.once("close", onClose)
      return Effect.sync(() => {
        incoming.off("end", onEnd)
        incoming.off("close", onClose)
      })
    })
    return { stream: NodeMultipart.stream(source, incoming.headers), failure: () => failure, ended }
  } catch {
    // not a Node request (tests through a web handler): the platform stream as it is
    return { stream: request.multipartStream, failure: () => failure, ended: Effect.never as Effect.Effect<void, MissingFile> }
  }
}

/**
 * The parser never finishes on a body that ends inside a part's headers: once the request body
 * has fully arrived, the parts must be done within this grace, or the body is incomplete.
 */
const END_GRACE = "1 second"

const failureError = (failure: ParserFailure, limits: UploadLimits): FileTooLarge | MissingFile | UnsupportedFileType => {
  if (failure._tag === "ReachedLimit") {
    return failure.limit === "MaxParts" ? new MissingFile({ message: "The multipart body has too many parts." }) : tooLarge(limits, "request")
  }
  if (failure._tag === "BadHeaders" && failure.error?.reason === "InvalidHeaderValue") {
    // the only free text a client puts in a part header is the file name
    return new UnsupportedFileType({ message: "The file name is not valid: it contains control characters." })
  }
  return new MissingFile({ message: `The multipart body could not be read: ${MISSING_FILE_MESSAGE}` })
}

export const receiveFilePart = (request: HttpServerRequest.HttpServerRequest, options: FilePartOptions) =>
  Effect.gen(function*() {
    let received: ReceivedFile | undefined
    const multipart = multipartParts(request)
    const parts = multipart.stream.pipe(
      Multipart.withLimitsStream({
        // the parser's part limit counts the part's headers too, so a file of exactly the
        // limit would be refused: the file size is counted below, on the content only
        maxFileSize: Option.none(),
        maxTotalSize: Option.some(options.maxPostSize),
        maxParts: Option.some(32),
        maxFieldSize: 1024 * 1024
      })
    )
    const incomplete = multipart.ended.pipe(
      Effect.zipRight(Effect.sleep(END_GRACE)),
      Effect.zipRight(Effect.fail(new MissingFile({ message: `The multipart body ended before it was complete: ${MISSING_FILE_MESSAGE}` })))
    )
    yield* Stream.runForEach(parts, (part) => {
      if (part._tag !== "File") return Effect.void
      const names = partNames(part)
      if (names.key !== "file" || received !== undefined) return Stream.runDrain(part.content)
      return Effect.gen(function*() {
        yield* options.checkName(names.name)
        const tempPath = path.join(options.tempDir, `.${randomUUID()}.part`)
        received = { name: names.name, tempPath, size: 0, head: new Uint8Array(0) }
        const fd = yield* Effect.try({ try: () => fs.openSync(tempPath, "wx"), catch: storeFailure })
        let size = 0
        let head = Buffer.alloc(0)
        yield* Stream.runForEach(part.content, (chunk) =>
          Effect.gen(function*() {
            size += chunk.length
            if (size > options.maxFileSize) return yield* tooLarge(options, "file")
            if (head.length < HEAD_BYTES) head = Buffer.concat([head, Buffer.from(chunk.subarray(0, HEAD_BYTES - head.length))])
            yield* Effect.try({ try: () => writeAll(fd, chunk), catch: storeFailure })
          })
        ).pipe(Effect.ensuring(Effect.sync(() => fs.closeSync(fd))))
        received = { name: names.name, tempPath, size, head }
      })
    }).pipe(
      Effect.catchTag("MultipartError", (e): Effect.Effect<never, FileTooLarge | MissingFile | UnsupportedFileType> => {
        const failure = multipart.failure()
        if (failure !== undefined) return Effect.fail(failureError(failure, options))
        return e.reason === "FileTooLarge" || e.reason === "BodyTooLarge" || e.reason === "FieldTooLarge"
          ? Effect.fail(tooLarge(options, "request"))
          : e.reason === "TooManyParts"
          ? Effect.fail(new MissingFile({ message: "The multipart body has too many parts." }))
          : Effect.fail(new MissingFile({ message: `The multipart body could not be read: ${MISSING_FILE_MESSAGE}` }))
      }),
      Effect.flatMap(() => {
        const failure = multipart.failure()
        return failure === undefined ? Effect.void : Effect.fail(failureError(failure, options))
      }),
      Effect.raceFirst(incomplete),
      Effect.tapError(() => Effect.sync(() => received && removeQuietly(received.tempPath))),
      Effect.onInterrupt(() => Effect.sync(() => received && removeQuietly(received.tempPath)))
    )
    if (received === undefined) return yield* new MissingFile({ message: MISSING_FILE_MESSAGE })
    if (received.size === 0) {
      fs.rmSync(received.tempPath, { force: true })
      return yield* new MissingFile({ message: "The uploaded file is empty." })
    }
    return received
  })

/**
 * Receives the file part and hands it to `use`; whatever happens next (a failure, the client
 * going away), the temporary file is gone afterwards unless `use` moved it elsewhere.
 */
export const withReceivedFile = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  options: FilePartOptions,
  use: (file: ReceivedFile) => Effect.Effect<A, E, R>
) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(restore(receiveFilePart(request, options)), (file) =>
      restore(use(file)).pipe(Effect.ensuring(Effect.sync(() => removeQuietly(file.tempPath)))))
  )

/** Removes a temporary file; never fails (a cleanup must not turn a 4xx into a defect). */
const removeQuietly = (file: string) => {
  try {
    fs.rmSync(file, { force: true })
  } catch {
    // its folder is gone or unusable: nothing was written there
  }
}

/** 507 when the disk is full, else 500: an upload that could not be stored. */
export const storeFailure = (error: unknown): InternalError | InsufficientStorage =>
  isDiskFull(error) ? diskFull() : new InternalError({ message: "The upload could not be stored." })
