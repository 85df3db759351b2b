import { describe, expect, it } from "@effect/vitest"
import { makeHotTiles } from "../../../src/services/maps/HotTiles.ts"

/** The tiles kept in memory: within their bound of bytes, the least recently asked leave first. */

const tile = () => ({ bytes: new Uint8Array(1_000) })

describe("hot tiles", () => {
  it("keep tiles within their bound, the least recently asked leaving first; a tile too large for them is not kept", () => {
    // room for sixteen tiles of 1,000 bytes (each costs its bytes and 200 more)
    const hot = makeHotTiles<{ readonly bytes: Uint8Array }>(16 * 1_200)
    const tiles = Array.from({ length: 17 }, tile)
    for (let i = 0; i < 16; i++) hot.put(`t${i}`, tiles[i]!)
    expect(hot.stats()).toEqual({ tiles: 16, bytes: 16 * 1_200 })
    // t0 asked again: t1 is now the least recently asked, and leaves for t16
    expect(hot.get("t0")).toBe(tiles[0])
    hot.put("t16", tiles[16]!)
    expect(hot.get("t1")).toBeUndefined()
    expect(hot.get("t0")).toBe(tiles[0])
    expect(hot.get("t16")).toBe(tiles[16])
    expect(hot.stats()).toEqual({ tiles: 16, bytes: 16 * 1_200 })
    // the same tile put again is counted once
    hot.put("t16", tiles[16]!)
    expect(hot.stats()).toEqual({ tiles: 16, bytes: 16 * 1_200 })
    // a tile of more than a sixteenth of the bound would push out many others: not kept
    hot.put("large", { bytes: new Uint8Array(2_000) })
    expect(hot.get("large")).toBeUndefined()
    expect(hot.stats().tiles).toBe(16)
  })
})
