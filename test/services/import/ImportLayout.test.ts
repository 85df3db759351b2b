import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The import's folders and their arrows: the modules of `services/import` itself (the import
 * service, the archive coordinator, the reader, the recorder, the watch folder) use the parts in
 * its subfolders (`files`, `archives`, `exports`, `parsers`, `metrics`, `geography`); a part never
 * imports a module of the folder above it, so each part can be read, tested and changed without
 * the import around it.
 */

const IMPORT = path.resolve(import.meta.dirname, "../../../src/services/import")

const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path.join(dir, e.name)] : [])

/** The first folder under services/import a file lies in; null for a module of services/import itself (or outside it). */
const partOf = (file: string): string | null => {
  const relative = path.relative(IMPORT, file)
  if (relative.startsWith("..")) return null
  const parts = relative.split(path.sep)
  return parts.length === 1 ? null : parts[0]!
}

describe("the import's layout", () => {
  it("has parts in subfolders (the test looks at something)", () => {
    const parts = new Set(sources(IMPORT).map(partOf).filter((part) => part !== null))
    expect([...parts].sort()).toEqual(expect.arrayContaining(["archives", "exports", "files", "parsers"]))
  })

  it("no part of the import (a module of a subfolder of services/import) imports a module of services/import itself", () => {
    const wrong: Array<string> = []
    for (const file of sources(IMPORT)) {
      if (partOf(file) === null) continue
      const text = fs.readFileSync(file, "utf8")
      for (const match of text.matchAll(/^(?:import|export)\s+(?:type\s+)?[^"]*?from\s+"(\.{1,2}\/[^"]+)"|import\("(\.{1,2}\/[^"]+)"\)/gm)) {
        const target = path.resolve(path.dirname(file), match[1] ?? match[2]!)
        if (path.dirname(target) === IMPORT) wrong.push(`${path.relative(IMPORT, file)} -> ${path.relative(IMPORT, target)}`)
      }
    }
    expect(wrong).toEqual([])
  })
})
