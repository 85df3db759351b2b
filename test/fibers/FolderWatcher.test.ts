import { describe, expect, it } from "@effect/vitest"
import { chooseWatcher, runsChokidar6 } from "../../src/fibers/FolderWatcher.ts"

describe("FolderWatcher", () => {
  it("chokidar 6 is for Node 22.22 and later, as its engines say", () => {
    expect(runsChokidar6("20.20.2")).toBe(false)
    expect(runsChokidar6("22.21.9")).toBe(false)
    expect(runsChokidar6("22.22.0")).toBe(true)
    expect(runsChokidar6("24.1.0")).toBe(true)
    expect(runsChokidar6("26.12.1")).toBe(true)
  })

  it("this Node watches with chokidar 6's events if it runs them (npm installed it here), else with the folders' own events; polling is chokidar 5's", async () => {
    expect((await chooseWatcher(null)).name).toBe(runsChokidar6() ? "chokidar 6" : "the folders' own change events")
    expect((await chooseWatcher(5000)).name).toBe("chokidar 5 polling")
  })
})
