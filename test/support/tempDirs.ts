import { afterAll } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * Fresh temporary folders named `<prefix>…`, all removed once the test file is done. Call at
 * the top of a test file.
 */
export const tempDirs = (prefix: string) => {
  const made: Array<string> = []
  afterAll(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
  })
  return (): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
    made.push(dir)
    return dir
  }
}
