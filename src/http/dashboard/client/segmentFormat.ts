import * as format from "./format.ts"

/** How segments, efforts and climbs read on the dashboard's pages. */

export const grade = (percent: number | null) => (percent === null ? "–" : `${percent.toFixed(1)} %`)

/** An effort's elapsed time, or a dash without one. */
export const effortTime = (effort: { readonly elapsedTimeInSeconds: number } | null) =>
  effort === null ? "–" : format.duration(effort.elapsedTimeInSeconds)

const RECORD_LABELS = { personalRecord: "PR", second: "2nd", third: "3rd" } as const

/** The mark of an effort that was the best, second or third on its segment when it was made. */
export const recordLabel = (record: keyof typeof RECORD_LABELS | null) => (record === null ? null : RECORD_LABELS[record])
