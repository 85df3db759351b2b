import { HttpServerRequest, Multipart } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileTooLarge, InternalError, MissingFile, UnsupportedFileType, UnsupportedMediaType } from "../schema/ApiErrors.ts"

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

export interface FilePartOptions {
  readonly maxFileSize: number
  readonly maxPostSize: number
  /** folder of the temporary file */
  readonly tempDir: string
  /** checks the client's file name before any byte is written */
  readonly checkName: (name: string) => Effect.Effect<void, UnsupportedFileType>
}

export const tooLarge = () => new FileTooLarge({ message: "The uploaded file is too large." })

/** 415 and 413 checks that need only the headers. */
export const checkMultipartHeaders = (request: HttpServerRequest.HttpServerRequest, maxPostSize: number) =>
  Effect.gen(function*() {
    const contentType = (request.headers["content-type"] ?? "").toLowerCase()
    if (!contentType.startsWith("multipart/form-data")) {
      return yield* new UnsupportedMediaType({ message: "Send the file as multipart/form-data." })
    }
    const declared = Number(request.headers["content-length"] ?? NaN)
    if (Number.isFinite(declared) && declared > maxPostSize) return yield* tooLarge()
  })

const HEAD_BYTES = 64

export const receiveFilePart = (request: HttpServerRequest.HttpServerRequest, options: FilePartOptions) =>
  Effect.gen(function*() {
    let received: ReceivedFile | undefined
    const parts = request.multipartStream.pipe(
      Multipart.withLimitsStream({
        maxFileSize: Option.some(options.maxFileSize),
        maxTotalSize: Option.some(options.maxPostSize),
        maxParts: Option.some(32),
        maxFieldSize: 1024 * 1024
      })
    )
    yield* Stream.runForEach(parts, (part) => {
      if (part._tag !== "File") return Effect.void
      if (part.key !== "file" || received !== undefined) return Stream.runDrain(part.content)
      return Effect.gen(function*() {
        yield* options.checkName(part.name)
        const tempPath = path.join(options.tempDir, `.${randomUUID()}.part`)
        received = { name: part.name, tempPath, size: 0, head: new Uint8Array(0) }
        const fd = yield* Effect.try({ try: () => fs.openSync(tempPath, "wx"), catch: storeFailure })
        let size = 0
        let head = Buffer.alloc(0)
        yield* Stream.runForEach(part.content, (chunk) =>
          Effect.gen(function*() {
            size += chunk.length
            if (size > options.maxFileSize) return yield* tooLarge()
            if (head.length < HEAD_BYTES) head = Buffer.concat([head, Buffer.from(chunk.subarray(0, HEAD_BYTES - head.length))])
            yield* Effect.try({ try: () => fs.writeSync(fd, chunk), catch: storeFailure })
          })
        ).pipe(Effect.ensuring(Effect.sync(() => fs.closeSync(fd))))
        received = { name: part.name, tempPath, size, head }
      })
    }).pipe(
      Effect.catchTag("MultipartError", (e): Effect.Effect<never, FileTooLarge | MissingFile> =>
        e.reason === "FileTooLarge" || e.reason === "BodyTooLarge" || e.reason === "FieldTooLarge"
          ? Effect.fail(tooLarge())
          : e.reason === "TooManyParts"
          ? Effect.fail(new MissingFile({ message: "The multipart body has too many parts." }))
          : Effect.fail(new MissingFile({ message: 'The multipart body could not be read: a "file" part is required.' }))
      ),
      Effect.tapError(() => Effect.sync(() => received && fs.rmSync(received.tempPath, { force: true }))),
      Effect.onInterrupt(() => Effect.sync(() => received && fs.rmSync(received.tempPath, { force: true })))
    )
    if (received === undefined) return yield* new MissingFile({ message: 'A "file" part is required.' })
    if (received.size === 0) {
      fs.rmSync(received.tempPath, { force: true })
      return yield* new MissingFile({ message: "The uploaded file is empty." })
    }
    return received
  })

const storeFailure = () => new InternalError({ message: "The upload could not be stored." })
