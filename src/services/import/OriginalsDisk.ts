import * as Context from "effect/Context"
import * as fs from "node:fs"
import { pipeline } from "node:stream/promises"
import * as zlib from "node:zlib"

/**
 * Copies the regular file `from` to `to`, without following a link
 * and without waiting on a pipe: `from` is opened with O_NOFOLLOW and O_NONBLOCK and must be a
 * regular file once open, so that what is copied is what was checked.
 */
/** One buffer for every copy (they are synchronous): a megabyte allocated per file weighed on bulk imports. */
const copyBuffer = Buffer.allocUnsafe(1024 * 1024)

export const copyRegularFile = (from: string, to: string): void => {
  const source = fs.openSync(from, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  try {
    if (!fs.fstatSync(source).isFile()) throw new Error(`${from} is not a regular file`)
    const target = fs.openSync(to, "w")
    try {
      const buffer = copyBuffer
      for (let read; (read = fs.readSync(source, buffer, 0, buffer.length, null)) > 0;) {
        for (let written = 0; written < read;) written += fs.writeSync(target, buffer, written, read - written)
      }
    } finally {
      fs.closeSync(target)
    }
  } finally {
    fs.closeSync(source)
  }
}

/**
 * `copyRegularFile`, gzipped on the way (zlib on libuv's threads: the event loop stays free):
 * how a failed import's original is kept, so that a file of zeros or a zip of a thousand
 * refused entries costs about what was dropped.
 */
export const compressRegularFile = async (from: string, to: string): Promise<void> => {
  const source = await fs.promises.open(from, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  try {
    if (!(await source.stat()).isFile()) throw new Error(`${from} is not a regular file`)
    await pipeline(source.createReadStream({ autoClose: false }), zlib.createGzip(), fs.createWriteStream(to))
  } finally {
    await source.close()
  }
}

/**
 * The file-system calls that keep a file's original bytes under `files/originals`: the first
 * write of an import, where a full disk shows first (ENOSPC). A reference, so that tests can
 * give the import a disk that is full and then has room again.
 */
export class OriginalsDisk extends Context.Reference<OriginalsDisk>()("services/import/OriginalsDisk", {
  defaultValue: (): {
    readonly copyFile: (from: string, to: string) => void
    readonly compressFile: (from: string, to: string) => Promise<void>
  } => ({
    copyFile: copyRegularFile,
    compressFile: compressRegularFile
  })
}) {}
