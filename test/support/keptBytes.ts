import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { compressedByImport } from "../../src/services/import/KeptOriginals.ts"

/** The bytes of a file as dropped, read from its kept original (a failed import's is kept compressed). */
export const keptBytes = (originalsDir: string, row: { readonly filename: string; readonly original_file: string | null }): Buffer => {
  const stored = fs.readFileSync(path.join(originalsDir, row.original_file!))
  return compressedByImport(row.original_file!, row.filename) ? zlib.gunzipSync(stored) : stored
}
