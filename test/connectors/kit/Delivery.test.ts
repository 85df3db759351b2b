import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDelivery, partNameOf } from "../../../src/connectors/kit/Delivery.ts"
import { isCandidateName } from "../../../src/services/import/WatchDirectory.ts"
import { tempDirs } from "../../support/tempDirs.ts"

const tempDir = tempDirs("waymark-kit-delivery-")
const bytes = (s: string) => new TextEncoder().encode(s)

describe("Delivery", () => {
  it.effect("publishes the bytes under the final name, mode 0644, leaving no .part", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const umask = process.umask(0o077)
      try {
        const delivery = yield* makeDelivery({ dir })
        expect(yield* delivery.deliver("polar-123.fit", bytes("FIT bytes"))).toEqual({ _tag: "Published", name: "polar-123.fit" })
      } finally {
        process.umask(umask)
      }
      expect(fs.readdirSync(dir)).toEqual(["polar-123.fit"])
      expect(fs.readFileSync(path.join(dir, "polar-123.fit"), "utf8")).toBe("FIT bytes")
      expect(fs.statSync(path.join(dir, "polar-123.fit")).mode & 0o777).toBe(0o644)
    }))

  it.effect("a streamed download is written as .<name>.part, invisible to the watcher, until it is complete", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const delivery = yield* makeDelivery({ dir })
      const seenMidway: Array<string> = []
      const content = Stream.make(bytes("first "), bytes("second")).pipe(
        Stream.tap(() => Effect.sync(() => seenMidway.push(...fs.readdirSync(dir))))
      )
      yield* delivery.deliver("ride.fit", content)
      expect(seenMidway).toContain(partNameOf("ride.fit"))
      expect(seenMidway).not.toContain("ride.fit")
      expect(seenMidway.filter(isCandidateName)).toEqual([])
      expect(fs.readFileSync(path.join(dir, "ride.fit"), "utf8")).toBe("first second")
    }))

  it.effect("never replaces an existing file by default: the new bytes are dropped", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      fs.writeFileSync(path.join(dir, "ride.fit"), "waiting for import")
      const delivery = yield* makeDelivery({ dir })
      expect(yield* delivery.deliver("ride.fit", bytes("again"))).toEqual({ _tag: "Exists", name: "ride.fit" })
      expect(fs.readFileSync(path.join(dir, "ride.fit"), "utf8")).toBe("waiting for import")
      expect(fs.readdirSync(dir)).toEqual(["ride.fit"])
    }))

  it.effect("replaces an existing file when told to overwrite", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      fs.writeFileSync(path.join(dir, "ride.fit"), "old")
      const delivery = yield* makeDelivery({ dir, onConflict: "overwrite" })
      expect(yield* delivery.deliver("ride.fit", bytes("new"))).toEqual({ _tag: "Published", name: "ride.fit" })
      expect(fs.readFileSync(path.join(dir, "ride.fit"), "utf8")).toBe("new")
      expect(fs.readdirSync(dir)).toEqual(["ride.fit"])
    }))

  it.effect("a download failing midway leaves nothing behind and fails with its own error", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const delivery = yield* makeDelivery({ dir })
      const content = Stream.concat(
        Stream.fromChunk(Chunk.of(bytes("half"))),
        Stream.fail({ _tag: "ConnectionReset" as const })
      )
      const error = yield* Effect.flip(delivery.deliver("ride.fit", content))
      expect(error).toEqual({ _tag: "ConnectionReset" })
      expect(fs.readdirSync(dir)).toEqual([])
    }))

  it.effect("refuses names that are paths or that the watch folder would ignore", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const delivery = yield* makeDelivery({ dir })
      for (const name of ["../escape.fit", "sub/ride.fit", ".hidden.fit", "ride.fit.part", "", ".."]) {
        const error = yield* Effect.flip(delivery.deliver(name, bytes("x")))
        expect(error._tag).toBe("DeliveryError")
        expect(error.message).toContain("cannot deliver")
      }
      expect(fs.readdirSync(dir)).toEqual([])
      expect(fs.existsSync(path.join(dir, "..", "escape.fit"))).toBe(false)
    }))

  it.effect("at start creates the folder and removes stale .part files, keeping everything else", () =>
    Effect.gen(function*() {
      const dir = path.join(tempDir(), "watch", "nested")
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, ".ride.fit.part"), "cut off by a crash")
      fs.writeFileSync(path.join(dir, "waiting.fit"), "an import")
      fs.writeFileSync(path.join(dir, ".keep"), "")
      fs.mkdirSync(path.join(dir, ".uploads"))
      yield* makeDelivery({ dir })
      expect(fs.readdirSync(dir).sort()).toEqual([".keep", ".uploads", "waiting.fit"])

      const fresh = path.join(tempDir(), "not", "yet")
      yield* makeDelivery({ dir: fresh })
      expect(fs.readdirSync(fresh)).toEqual([])
    }))

  it.effect("with the .tmp suffix: writes .<name>.tmp and removes only stale .tmp files (another connector's .part stays)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      fs.writeFileSync(path.join(dir, ".old.fit.tmp"), "cut off by a crash")
      fs.writeFileSync(path.join(dir, ".other.fit.part"), "another connector writing")
      const delivery = yield* makeDelivery({ dir, temporarySuffix: ".tmp" })
      expect(fs.readdirSync(dir).sort()).toEqual([".other.fit.part"])
      let seenMidway: Array<string> = []
      const content = Stream.concat(
        Stream.make(bytes("first ")),
        Stream.fromEffect(Effect.sync(() => {
          seenMidway = fs.readdirSync(dir)
          return bytes("second")
        }))
      )
      yield* delivery.deliver("wahoo.fit", content)
      expect(seenMidway).toContain(partNameOf("wahoo.fit", ".tmp"))
      expect(partNameOf("wahoo.fit", ".tmp")).toBe(".wahoo.fit.tmp")
      expect(fs.readdirSync(dir).sort()).toEqual([".other.fit.part", "wahoo.fit"])
    }))

  it.effect("a folder that cannot be written fails at start with the folder named", () =>
    Effect.gen(function*() {
      const parent = tempDir()
      const notAFolder = path.join(parent, "watch")
      fs.writeFileSync(notAFolder, "a file where the folder should be")
      const error = yield* Effect.flip(makeDelivery({ dir: notAFolder }))
      expect(error.message).toContain(`the watch folder ${notAFolder} is not writable`)

      if (process.getuid?.() !== 0) {
        const readOnly = path.join(parent, "read-only")
        fs.mkdirSync(readOnly, { mode: 0o555 })
        const refused = yield* Effect.flip(makeDelivery({ dir: readOnly }))
        expect(refused.message).toContain(`the watch folder ${readOnly} is not writable`)
      }
    }))
})
