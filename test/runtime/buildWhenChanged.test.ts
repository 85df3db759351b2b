import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { BUILD_OUTPUTS, buildWhenChanged } from "../../scripts/buildWhenChanged.mjs"

/**
 * `npm start` builds dist/ only when what it is built from changed since the last build: a
 * start with a wrong setting then fails at once instead of after a build. Here over a tree of
 * its own, with a build that writes the outputs and counts its runs.
 */

const tree = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-build-"))
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), text)
  }
  write("src/main.ts", "export {}\n")
  write("src/http/dashboard/client/main.ts", "export {}\n")
  write("package.json", "{}\n")
  write("package-lock.json", "{}\n")
  write("tsconfig.json", "{}\n")
  write("node_modules/.package-lock.json", "{}\n")
  let builds = 0
  let fails = false
  const build = () => {
    builds++
    if (fails) return 1
    for (const output of BUILD_OUTPUTS) write(output.startsWith("dist/dashboard") ? `${output}/app.js` : output, "built\n")
    return 0
  }
  const start = () => buildWhenChanged(root, build, () => {})
  return {
    root,
    write,
    start,
    builds: () => builds,
    failNext: (yes: boolean) => void (fails = yes),
    close: () => fs.rmSync(root, { recursive: true, force: true })
  }
}

describe("the build before a start", () => {
  it("a fresh clone builds; a second start with nothing changed does not; a change to a source, the dashboard, a setting of the build or the installed packages builds again", () => {
    const t = tree()
    try {
      expect(t.start()).toBe(0)
      expect(t.builds()).toBe(1)
      expect(t.start()).toBe(0)
      expect(t.builds()).toBe(1)
      const changes = ["src/main.ts", "src/http/dashboard/client/main.ts", "tsconfig.json", "node_modules/.package-lock.json", "src/new/Feature.ts"]
      for (const [i, file] of changes.entries()) {
        t.write(file, `changed ${i}\n`)
        t.start()
        expect(t.builds(), file).toBe(2 + i)
        t.start()
        expect(t.builds(), file).toBe(2 + i)
      }
    } finally {
      t.close()
    }
  })

  it("a build that failed, or a dist/ that lost a part, is built again at the next start", () => {
    const t = tree()
    try {
      t.start()
      t.write("src/main.ts", "broken\n")
      t.failNext(true)
      expect(t.start()).toBe(1)
      t.failNext(false)
      expect(t.start()).toBe(0)
      expect(t.builds()).toBe(3)
      fs.rmSync(path.join(t.root, "dist", "main.js"))
      t.start()
      expect(t.builds()).toBe(4)
      t.start()
      expect(t.builds()).toBe(4)
    } finally {
      t.close()
    }
  })
})
