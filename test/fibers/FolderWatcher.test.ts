import { describe, expect, it } from "@effect/vitest"
import { loadChokidar, runsChokidar6 } from "../../src/fibers/FolderWatcher.ts"

describe("FolderWatcher", () => {
  it("chokidar 6 is for Node 22.22 and later, as its engines say", () => {
    expect(runsChokidar6("20.20.2")).toBe(false)
    expect(runsChokidar6("22.21.9")).toBe(false)
    expect(runsChokidar6("22.22.0")).toBe(true)
    expect(runsChokidar6("24.1.0")).toBe(true)
    expect(runsChokidar6("26.12.1")).toBe(true)
  })

  it("this Node watches with chokidar 6 if it runs it (npm installed it here), else with chokidar 5 and the folders' own events", async () => {
    expect((await loadChokidar()).major).toBe(runsChokidar6() ? 6 : 5)
  })
})
