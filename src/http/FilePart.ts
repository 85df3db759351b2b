import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import busboy from "busboy"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import type { IncomingMessage } from "node:http"
import * as path from "node:path"
import {
  FileTooLarge,
  type InsufficientStorage,
  InternalError,
  MissingFile,
  UnsupportedFileType,
  UnsupportedMediaType
} from "../schema/ApiErrors.ts"
import { isZipName } from "../services/import/files/ActivityFileName.ts"
import { MAX_IMPORT_FILE_BYTES } from "../services/import/ImportReader.ts"
import { declaredLength, uploadRequestBytes } from "./BodyLimits.ts"
import { diskFull, isDiskFull } from "./DiskFull.ts"

/**
 * Reads the `file` part of a multipart/form-data request straight to disk (through a write
 * stream: nothing synchronous on the event loop while the bytes arrive), enforcing the
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
  /** when the route takes export archives (.zip): the most bytes one may have (ARCHIVE_MAX_SIZE) */
  readonly maxArchiveSize?: number
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
 * The 413 of an upload over `over`: a single file's limit, an archive's, or the whole request's.
 * It names the limit and the setting that raises it, and for a single activity file the watch
 * folder, where a file is read from disk and only the import's own bound applies. A route that
 * takes archives names their limit apart: an export archive is not held to a single file's.
 */
export const tooLarge = (limits: UploadLimits, over: "file" | "archive" | "request") => {
  const archives = limits.maxArchiveSize !== undefined
    ? ` An export archive (.zip) may have up to ${sizeText(limits.maxArchiveSize)} (ARCHIVE_MAX_SIZE).`
    : ""
  if (over === "archive") {
    return new FileTooLarge({
      message: `The uploaded archive is too large: at most ${sizeText(limits.maxArchiveSize ?? limits.maxFileSize)} is accepted (ARCHIVE_MAX_SIZE). Raise ARCHIVE_MAX_SIZE in the service's settings.`
    })
  }
  const stated = over === "file"
    ? `The uploaded file is too large: at most ${sizeText(limits.maxFileSize)} is accepted (UPLOAD_MAX_FILESIZE).`
    : `The upload is too large: at most ${sizeText(limits.maxPostSize)} is accepted per request (POST_MAX_SIZE), ${
      sizeText(limits.maxFileSize)
    } per file (UPLOAD_MAX_FILESIZE).`
  const setting = over === "file" ? "UPLOAD_MAX_FILESIZE" : "POST_MAX_SIZE"
  const watch = limits.watchFolder && MAX_IMPORT_FILE_BYTES > Math.min(limits.maxFileSize, limits.maxPostSize)
    ? `, or copy the file into the watch folder (WATCH_DIR), which imports activity files up to ${sizeText(MAX_IMPORT_FILE_BYTES)}`
    : ""
  return new FileTooLarge({ message: `${stated}${archives} Raise ${setting} in the service's settings${watch}.` })
}

/** The most bytes a request may have before its file part says whether it is an archive. */
const requestCap = (limits: UploadLimits, archive: boolean | undefined): number =>
  limits.maxArchiveSize !== undefined && archive !== false
    ? uploadRequestBytes({ postMaxSize: limits.maxPostSize, archiveMaxSize: limits.maxArchiveSize }, true)
    : limits.maxPostSize

const MISSING_FILE_MESSAGE = 'A "file" part is required.'

/**
 * 415, 413 and 400 checks that need only the headers: a multipart body without a boundary,
 * or with no bytes at all, is refused before its body is read.
 */
export const checkMultipartHeaders = (request: HttpServerRequest.HttpServerRequest, limits: UploadLimits) =>
  Effect.gen(function*() {
    const contentType = (request.headers["content-type"] ?? "").toLowerCase()
    if (!contentType.startsWith("multipart/form-data")) {
      return yield* new UnsupportedMediaType({ message: "Send the file as multipart/form-data." })
    }
    const declared = Number(request.headers["content-length"] ?? NaN)
    if (Number.isFinite(declared) && declared > requestCap(limits, undefined)) return yield* tooLarge(limits, "request")
    if (!/;\s*boundary=("[^"]+"|[^\s;]+)/i.test(request.headers["content-type"] ?? "")) {
      return yield* new MissingFile({ message: `The multipart/form-data body has no boundary: ${MISSING_FILE_MESSAGE}` })
    }
    if (declared === 0 || (request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined)) {
      return yield* new MissingFile({ message: `The request body is empty: ${MISSING_FILE_MESSAGE}` })
    }
  })

const HEAD_BYTES = 64

/** Parts of one request: a file and a few form fields at most. */
const MAX_PARTS = 32
const MAX_FIELD_BYTES = 1024 * 1024

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

const nodeRequest = (request: HttpServerRequest.HttpServerRequest): IncomingMessage | undefined => {
  try {
    return NodeHttpServerRequest.toIncomingMessage(request) ?? undefined
  } catch {
    return undefined
  }
}

type ReceiveError = FileTooLarge | MissingFile | UnsupportedFileType | InternalError | InsufficientStorage

const unreadable = () => new MissingFile({ message: `The multipart body could not be read: ${MISSING_FILE_MESSAGE}` })
const invalidName = () => new UnsupportedFileType({ message: "The file name is not valid: it contains control characters." })
const tooManyParts = () => new MissingFile({ message: "The multipart body has too many parts." })

/**
 * The `file` part of a multipart request, through busboy, which reports every failure of the
 * body (a part header it cannot read, a body that ends early, a limit reached) as an event
 * seen here. The first "file" part with a file name is written to a temporary file as it
 * arrives; other parts are read and dropped. The request's bytes are counted as they arrive:
 * past POST_MAX_SIZE, or a file past UPLOAD_MAX_FILESIZE, the upload is refused at once and the
 * rest of the body is dropped unread. A request that ends before its body did (the client went
 * away) is refused too. Whatever way it ends, a refused upload leaves no file behind.
 */
export const receiveFilePart = (request: HttpServerRequest.HttpServerRequest, options: FilePartOptions) =>
  Effect.suspend(() => {
    const incoming = nodeRequest(request)
    if (incoming === undefined) return Effect.die(new Error("receiveFilePart reads a Node request"))
    return Effect.async<ReceivedFile, ReceiveError>((resume) => {
      let parser: busboy.Busboy
      try {
        parser = busboy({
          headers: incoming.headers,
          // the name checks must see a client's path, and names in UTF-8 as browsers send them
          preservePath: true,
          defParamCharset: "utf8",
          limits: { parts: MAX_PARTS, fieldSize: MAX_FIELD_BYTES }
        })
      } catch {
        // a content type busboy cannot read (checkMultipartHeaders refuses most before)
        return resume(Effect.fail(unreadable()))
      }
      let settled = false
      // written through a stream: nothing synchronous on the event loop while the bytes arrive
      let file: { name: string; tempPath: string; out: fs.WriteStream; size: number; head: Buffer; ended: boolean; written: boolean } | undefined
      let bodyBytes = 0
      /** whether the file part is an archive, once its name is known */
      let archive: boolean | undefined

      /**
       * Stops writing the file and removes it once its stream has closed (an open still under
       * way creates it), then `then`: a refusal is answered once nothing of it is left.
       */
      const discardFile = (then: () => void) => {
        if (file === undefined) return then()
        const { out, tempPath } = file
        const removed = () => {
          removeQuietly(tempPath)
          then()
        }
        if (out.closed) return removed()
        out.once("close", removed)
        out.destroy()
      }
      const stop = () => {
        settled = true
        incoming.off("data", onData)
        incoming.off("close", onClose)
        incoming.off("error", onIncomingError)
        incoming.unpipe(parser)
        // the rest of a refused body is read and dropped (the 413 closes the connection)
        if (!incoming.readableEnded) incoming.resume()
      }
      const fail = (error: ReceiveError) => {
        if (settled) return
        stop()
        discardFile(() => resume(Effect.fail(error)))
      }
      const onData = (chunk: Buffer) => {
        bodyBytes += chunk.length
        if (bodyBytes > requestCap(options, archive)) fail(tooLarge(options, archive === true ? "archive" : "request"))
      }
      const onClose = () => {
        if (!incoming.readableEnded) fail(new MissingFile({ message: `The request body was cut off: ${MISSING_FILE_MESSAGE}` }))
      }
      // a client that breaks off the upload makes the request emit `error`: handled here, never
      // thrown out of the event loop
      const onIncomingError = () => onClose()

      parser.on("file", (field, stream, info) => {
        // a body cut short destroys the part's stream with the parser's error: it is the
        // parser's "error" below that answers; unheard here, it would stop the process
        stream.on("error", () => {})
        const name = info.filename
        if (settled || field !== "file" || file !== undefined || name === undefined) return void stream.resume()
        const checked = Effect.runSync(Effect.either(options.checkName(name)))
        if (Either.isLeft(checked)) return fail(checked.left)
        if (CONTROL_CHARACTER.test(name)) return fail(invalidName())
        archive = options.maxArchiveSize !== undefined && isZipName(name)
        // a single file: the request within POST_MAX_SIZE again, whatever it declared or has sent
        if (!archive && Math.max(bodyBytes, declaredLength(incoming.headers) ?? 0) > options.maxPostSize) return fail(tooLarge(options, "request"))
        const fileLimit = archive ? options.maxArchiveSize! : options.maxFileSize
        const tempPath = path.join(options.tempDir, `.${randomUUID()}.part`)
        const out = fs.createWriteStream(tempPath, { flags: "wx" })
        const current = { name, tempPath, out, size: 0, head: Buffer.alloc(0), ended: false, written: false }
        file = current
        // a full disk, no permission: the upload is refused, its file removed
        out.on("error", (e) => fail(storeFailure(e)))
        out.on("finish", () => {
          current.written = true
          finish()
        })
        stream.on("data", (chunk: Buffer) => {
          if (settled) return
          current.size += chunk.length
          if (current.size > fileLimit) return fail(tooLarge(options, archive ? "archive" : "file"))
          if (current.head.length < HEAD_BYTES) current.head = Buffer.concat([current.head, chunk.subarray(0, HEAD_BYTES - current.head.length)])
          // the part waits while the file's writes catch up
          if (!out.write(chunk)) {
            stream.pause()
            out.once("drain", () => stream.resume())
          }
        })
        stream.on("end", () => {
          current.ended = true
          out.end()
        })
      })
      parser.on("field", () => {})
      parser.on("partsLimit", () => fail(tooManyParts()))
      parser.on("fieldsLimit", () => fail(tooManyParts()))
      parser.on("filesLimit", () => fail(tooManyParts()))
      // a part header refused while the body is still arriving holds a byte no header may hold:
      // the only free text a client puts there is the file name (a NUL, a DEL, a control
      // character); one left unfinished at the end is a body cut short
      parser.on("error", () => fail(parser.writableEnded ? unreadable() : invalidName()))
      let parsed = false
      /** Once the body is parsed and the file's bytes are all written: the upload is received. */
      const finish = () => {
        if (settled || !parsed || file === undefined || !file.written) return
        stop()
        resume(Effect.succeed({ name: file.name, tempPath: file.tempPath, size: file.size, head: new Uint8Array(file.head) }))
      }
      parser.on("close", () => {
        if (settled) return
        if (file === undefined) return fail(new MissingFile({ message: MISSING_FILE_MESSAGE }))
        if (!file.ended) return fail(unreadable())
        if (file.size === 0) return fail(new MissingFile({ message: "The uploaded file is empty." }))
        parsed = true
        finish()
      })

      incoming.on("data", onData)
      incoming.once("close", onClose)
      incoming.on("error", onIncomingError)
      incoming.pipe(parser)
      if (incoming.readableEnded) fail(new MissingFile({ message: `The request body is empty: ${MISSING_FILE_MESSAGE}` }))
      // interrupted (the app gave up on the request): nothing of it stays
      return Effect.sync(() => {
        if (settled) return
        stop()
        discardFile(() => {})
      })
    })
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
