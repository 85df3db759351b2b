import { Context } from "effect"
import * as fs from "node:fs"

/**
 * How the bytes of an upload reach its temporary file. The one place a write of the upload
 * path can fail for lack of space, so a test can make it fail the way a full disk does.
 */
export class UploadWrites extends Context.Reference<UploadWrites>()("http/UploadWrites", {
  defaultValue: () => ({
    write: (fd: number, chunk: Uint8Array): void => {
      let written = 0
      while (written < chunk.length) written += fs.writeSync(fd, chunk, written)
    }
  })
}) {}
