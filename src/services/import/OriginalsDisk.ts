import { Context } from "effect"
import * as fs from "node:fs"

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
 * The file-system call that keeps a file's original bytes under `files/originals`: the first
 * write of an import, where a full disk shows first (ENOSPC). A reference, so that tests can
 * give the import a disk that is full and then has room again.
 */
export class OriginalsDisk extends Context.Reference<OriginalsDisk>()("services/import/OriginalsDisk", {
  defaultValue: () => ({
    copyFile: copyRegularFile
  })
}) {}
