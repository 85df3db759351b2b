import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FileImportRepo, type NewFileImport, newFileImportId } from "../../../src/services/import/FileImportRepo.ts"
import { contentHashOf, fileHolds, SameBytes } from "../../../src/services/import/SameBytes.ts"
import { scopedRoot, servicesLayer } from "../../support/ImportHarness.ts"

/**
 * The one answer to "the same bytes?": whether a file holds them (a regular file only), and
 * what the import log holds of them (a row of the file with them, the originals rows keep of
 * them, the one a failure of them kept).
 */

const ride = contentHashOf(Buffer.from("a ride"))
const broken = contentHashOf(Buffer.from("a broken file"))

const row = (filename: string, contentHash: string, status: NewFileImport["status"], originalFile: string | null): NewFileImport => ({
  id: newFileImportId(),
  filename,
  source: "fitFile",
  status,
  errorMessage: status === "failed" ? "it failed" : null,
  activityId: null,
  importedOn: 0,
  contentHash,
  sourceSize: 1,
  sourceMtime: 0,
  originalFile
})

describe("fileHolds", () => {
  it("is true for a regular file of those bytes only: other bytes, no file or a link to the bytes are not", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-samebytes-"))
    try {
      const file = path.join(dir, "ride.fit")
      fs.writeFileSync(file, "a ride")
      fs.symlinkSync(file, path.join(dir, "link.fit"))
      expect(fileHolds(file, ride)).toBe(true)
      expect(fileHolds(file, broken)).toBe(false)
      expect(fileHolds(path.join(dir, "gone.fit"), ride)).toBe(false)
      expect(fileHolds(path.join(dir, "link.fit"), ride)).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

const SameBytesOverStorage = Layer.unwrapScoped(Effect.map(scopedRoot(), (root) => SameBytes.Default.pipe(Layer.provideMerge(servicesLayer(root)))))

layer(SameBytesOverStorage, { excludeTestServices: true })("what the import log holds of the same bytes", (it) => {
  it.effect("a row of the file with the bytes, the originals rows keep of them, and the one a failure of them kept", () =>
    Effect.gen(function*() {
      const rows = yield* FileImportRepo
      yield* rows.insert(row("ride.fit", ride, "success", "fileImport-1.fit"))
      yield* rows.insert(row("copy.fit", ride, "skipped", null))
      yield* rows.insert(row("broken.fit", broken, "failed", "fileImport-2.fit.gz"))
      const same = yield* SameBytes
      expect(yield* same.recorded("ride.fit", ride)).toBe(true)
      expect(yield* same.recorded("copy.fit", ride)).toBe(true)
      expect(yield* same.recorded("ride.fit", broken)).toBe(false)
      expect(yield* same.keptOriginals(ride)).toEqual(["fileImport-1.fit"])
      expect(yield* same.keptOriginals(broken)).toEqual(["fileImport-2.fit.gz"])
      expect(yield* same.failedOriginal(broken)).toBe("fileImport-2.fit.gz")
      expect(yield* same.failedOriginal(ride)).toBeNull()
    }))
})
