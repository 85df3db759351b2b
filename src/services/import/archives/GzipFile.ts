import * as Effect from "effect/Effect"
import { promisify } from "node:util"
import * as zlib from "node:zlib"
import { isGzipped } from "../files/ActivityFileName.ts"

/**
 * A gzipped activity file (`ride.fit.gz`, as a Strava export holds them): unpacked before it is
 * parsed, at most `maxBytes` once unpacked; one that cannot be unpacked fails with the reason in
 * words for the person who sent it, and whether it looks cut short (a copy still in progress).
 */

const gunzip = promisify(zlib.gunzip)

/** Why a gzipped file cannot be unpacked. */
export interface GzipProblem {
  readonly message: string
  readonly truncated: boolean
}

const problemOf = (filename: string, error: unknown, maxBytes: number): string => {
  const code = (error as NodeJS.ErrnoException).code
  if (code === "ERR_BUFFER_TOO_LARGE") return `"${filename}" is too large to import once unpacked (more than ${maxBytes} bytes).`
  if (code === "Z_BUF_ERROR") return `"${filename}" is cut short: the gzip file is truncated. Download or copy it again.`
  return `"${filename}" is not a gzip file, though its name ends in .gz: rename it without .gz, or compress it again.`
}

/** The activity file's bytes: unpacked when its name ends in .gz (on libuv's threads), as they are otherwise. */
export const gunzipActivityFile = (filename: string, bytes: Uint8Array, maxBytes: number): Effect.Effect<Uint8Array, GzipProblem> =>
  isGzipped(filename)
    ? Effect.tryPromise({
      try: () => gunzip(bytes, { maxOutputLength: maxBytes }),
      catch: (error): GzipProblem => ({
        message: problemOf(filename, error, maxBytes),
        truncated: bytes.length === 0 || (error as NodeJS.ErrnoException).code === "Z_BUF_ERROR"
      })
    })
    : Effect.succeed(bytes)
