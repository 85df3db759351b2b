import { Context } from "effect"
import * as fs from "node:fs"

/**
 * The file-system call that keeps a file's original bytes under `files/originals`: the first
 * write of an import, where a full disk shows first (ENOSPC). A reference, so that tests can
 * give the import a disk that is full and then has room again.
 */
export class OriginalsDisk extends Context.Reference<OriginalsDisk>()("services/import/OriginalsDisk", {
  defaultValue: () => ({
    copyFile: (from: string, to: string): void => fs.copyFileSync(from, to)
  })
}) {}
