/**
 * Values computed from the database, kept while it is unchanged: every entry is dropped as soon
 * as `version` changes (the ReadConnection's `dataVersion`, which any commit changes). A value
 * is computed after the version it is kept under was read, so it is never older than that
 * version, and it is served only while that version holds: never stale.
 *
 * Bounded by the total weight of its entries; the oldest leave first.
 */
export const makeVersionedCache = <A>(options: {
  readonly version: () => number
  readonly capacity: number
  readonly weigh: (key: string, value: A) => number
}) => {
  let at = -1
  let weight = 0
  const entries = new Map<string, A>()
  return (key: string, compute: () => A | undefined): A | undefined => {
    const now = options.version()
    if (now !== at) {
      entries.clear()
      weight = 0
      at = now
    }
    const kept = entries.get(key)
    if (kept !== undefined) return kept
    const value = compute()
    if (value === undefined) return undefined
    const cost = options.weigh(key, value)
    if (cost <= options.capacity / 4) {
      entries.set(key, value)
      weight += cost
      for (const [oldKey, oldValue] of entries) {
        if (weight <= options.capacity) break
        entries.delete(oldKey)
        weight -= options.weigh(oldKey, oldValue)
      }
    }
    return value
  }
}
