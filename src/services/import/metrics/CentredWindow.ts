/**
 * Walks the samples of [a, b) with the window centred on each: `visit(i, lo, hi)` gets the first
 * and the last sample within ±halfWindowS seconds of sample i (hi at least its next neighbour
 * when there is one), in order. Both ends only move forward: O(b − a) for the whole segment.
 */
export const forEachCentredWindow = (
  timeS: Float64Array,
  a: number,
  b: number,
  halfWindowS: number,
  visit: (i: number, lo: number, hi: number) => void
): void => {
  let lo = a
  let hi = a
  for (let i = a; i < b; i++) {
    if (hi < i) hi = i
    while (hi + 1 < b && (timeS[hi + 1]! - timeS[i]! <= halfWindowS || hi === i)) hi++
    while (lo < i - 1 && timeS[i]! - timeS[lo]! > halfWindowS) lo++
    visit(i, lo, hi)
  }
}
