/**
 * Tiles kept in memory, within a bound of bytes, the least recently asked leaving first: the
 * tiles of the area an athlete rides in are asked again and again, and one kept is answered
 * without reading the file (a Map keeps its keys in order of use: a tile asked is moved last).
 * A tile of more than a sixteenth of the bound is not kept: it would push out many.
 */
export const makeHotTiles = <A extends { readonly bytes: Uint8Array }>(limitBytes: number) => {
  /** what an entry costs beyond its bytes: its key, its answer and the map's slot */
  const OVERHEAD = 200
  const entries = new Map<string, A>()
  let bytes = 0
  const weigh = (value: A) => value.bytes.byteLength + OVERHEAD
  return {
    get: (key: string): A | undefined => {
      const value = entries.get(key)
      if (value !== undefined) {
        entries.delete(key)
        entries.set(key, value)
      }
      return value
    },
    put: (key: string, value: A): void => {
      const cost = weigh(value)
      if (cost > limitBytes / 16) return
      const old = entries.get(key)
      if (old !== undefined) {
        entries.delete(key)
        bytes -= weigh(old)
      }
      entries.set(key, value)
      bytes += cost
      for (const [oldKey, oldValue] of entries) {
        if (bytes <= limitBytes) break
        entries.delete(oldKey)
        bytes -= weigh(oldValue)
      }
    },
    stats: () => ({ tiles: entries.size, bytes })
  } as const
}
