import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { escapedName, foundName, renameUnreadableNames } from "../../../src/services/import/unreadableNames.ts"

const latin1 = (text: string) => Buffer.from(text, "latin1")

describe("names that are not UTF-8", () => {
  it("the new name writes each byte that is not UTF-8 %XX; the name as found writes it \\xXX; UTF-8 is kept as it is", () => {
    expect(escapedName(latin1("Fahrt_M\u00fcnchen.gpx"))).toBe("Fahrt_M%FCnchen.gpx")
    expect(foundName(latin1("Fahrt_M\u00fcnchen.gpx"))).toBe("Fahrt_M\\xfcnchen.gpx")
    expect(escapedName(Buffer.from("Fahrt_M\u00fcnchen.gpx"))).toBeNull()
    expect(foundName(Buffer.concat([Buffer.from("Z\u00fcrich-"), latin1("\u00e9t\u00e9")]))).toBe("Z\u00fcrich-\\xe9t\\xe9")
  })

  it("a rename answers the name as found apart from the new one, and the new one when the first is taken", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-names-"))
    try {
      fs.writeFileSync(path.join(dir, "Fahrt_M%FCnchen.gpx"), "taken")
      fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), latin1("Fahrt_M\u00fcnchen.gpx")]), "<gpx/>")
      expect(renameUnreadableNames(dir)).toEqual([["Fahrt_M\\xfcnchen.gpx", "Fahrt_M%FCnchen-1.gpx"]])
      expect(fs.readdirSync(dir).sort()).toEqual(["Fahrt_M%FCnchen-1.gpx", "Fahrt_M%FCnchen.gpx"])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
