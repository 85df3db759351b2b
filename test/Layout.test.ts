import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The source's folders and their one-way arrows: `runtime` composes the programs from `http`,
 * `fibers`, `connectors` and `cli`, which use `services`, which use `schema`. Nothing imports
 * `runtime` but the entry points; a connector imports only `services`, `schema` and its
 * `kit`, never another connector, `http` or `fibers`; the dashboard's browser code imports
 * only itself and the page list (and types, which are not bundled).
 */

const SRC = path.resolve(import.meta.dirname, "../src")

/** The area of a file: `schema`, `services`, `http`, `client`, `fibers`, `kit`, `connectors/<name>`, `cli`, `runtime`, or `entry`. */
const areaOf = (file: string): string => {
  const parts = path.relative(SRC, file).split(path.sep)
  if (parts.length === 1) return "entry"
  if (parts[0] === "connectors") return parts[1] === "kit" ? "kit" : `connectors/${parts[1]}`
  if (parts.slice(0, 3).join("/") === "http/dashboard/client") return "client"
  return parts[0]!
}

const ALLOWED: Record<string, (target: string, file: string) => boolean> = {
  schema: (t) => t === "schema",
  services: (t) => ["services", "schema"].includes(t),
  http: (t) => ["http", "services", "schema"].includes(t),
  fibers: (t) => ["fibers", "services", "schema"].includes(t),
  kit: (t) => ["kit", "services", "schema"].includes(t),
  cli: (t) => ["cli", "services", "schema"].includes(t),
  runtime: (t) => t !== "entry",
  entry: (t) => t === "runtime" || t === "services"
}
const allowed = (from: string, to: string, target: string): boolean => {
  if (from === to) return true
  if (from.startsWith("connectors/")) return ["kit", "services", "schema"].includes(to)
  if (from === "client") return target === path.join(SRC, "http/dashboard/dashboardPages.ts")
  return ALLOWED[from]!(to, target)
}

const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : /\.ts$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path.join(dir, e.name)] : [])

describe("the source's layout", () => {
  it("every import points down the arrows (runtime, then http, fibers, connectors and cli, then services, then schema)", () => {
    const wrong: Array<string> = []
    for (const file of sources(SRC)) {
      const text = fs.readFileSync(file, "utf8")
      // type-only imports are erased: the browser code may name the API's types
      for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^"]*?from\s+"(\.{1,2}\/[^"]+)"|import\("(\.{1,2}\/[^"]+)"\)/gm)) {
        const typeOnly = match[1] !== undefined
        const target = path.resolve(path.dirname(file), match[2] ?? match[3]!)
        const from = areaOf(file)
        const to = areaOf(target)
        if (typeOnly && from === "client") continue
        if (!allowed(from, to, target)) wrong.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it("the daemon's code takes Effect and @effect/sql module by module, never from their index (which loads every module of the package at start)", () => {
    const barrels = sources(SRC)
      .filter((file) => areaOf(file) !== "client")
      .filter((file) => /^import\s[^"]*from\s+"(effect|@effect\/sql)"$/m.test(fs.readFileSync(file, "utf8")))
      .map((file) => path.relative(SRC, file))
    expect(barrels).toEqual([])
  })
})

/** The folders that are no feature's: the platform's services, and in `http` the dashboard, the encoders and the daemon's own routes (status, probes, /metrics). */
const NOT_FEATURES = { services: ["platform"], http: ["dashboard", "encode", "system"] }
const foldersOf = (dir: string): Array<string> =>
  fs.readdirSync(path.join(SRC, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()

describe("a feature is a slice: one name across its folders", () => {
  const features = foldersOf("services").filter((name) => !NOT_FEATURES.services.includes(name))

  it("each feature of services/ has its routes in http/ under the same name, and http/ has no folder of another name", () => {
    expect(foldersOf("http")).toEqual([...features, ...NOT_FEATURES.http].sort())
  })

  it("no HttpApi group or handlers lie flat at the root of http/ (only the composition of the groups, Api.ts)", () => {
    const flat = fs.readdirSync(path.join(SRC, "http")).filter((name) => /(Api|Http)\.ts$/.test(name) && name !== "Api.ts")
    expect(flat).toEqual([])
  })

  it("each page of the dashboard is named after its feature (its name, or one of it)", () => {
    const stems = [...features, ...features.map((name) => name.replace(/ies$/, "y").replace(/s$/, "")), "system"]
    const unnamed = fs.readdirSync(path.join(SRC, "http/dashboard/client/pages"))
      .filter((page) => !stems.some((stem) => page.startsWith(stem)))
    expect(unnamed).toEqual([])
  })
})
