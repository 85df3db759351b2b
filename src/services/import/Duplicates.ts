import * as Effect from "effect/Effect"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { ActivityRepo } from "../activities/ActivityRepo.ts"

/**
 * What makes a file a duplicate, `skipped` naming the activity it duplicates: the same bytes
 * as an earlier import whose activity still exists (SameBytes), or an activity that starts within 60 s of
 * a stored one and overlaps it at least 80 % in time, whatever the file's name, format or sport
 * (an activity whose date is unknown is the same as another only by its bytes).
 */

export const DUPLICATE_START_WINDOW_MS = 60_000
export const DUPLICATE_MIN_OVERLAP = 0.8

const interval = (d: { readonly startTime: number; readonly elapsedTimeInSeconds: number }) => ({
  start: d.startTime,
  end: d.startTime + Math.max(1, d.elapsedTimeInSeconds) * 1000
})

export const overlapRatio = (a: { start: number; end: number }, b: { start: number; end: number }): number => {
  const shared = Math.min(a.end, b.end) - Math.max(a.start, b.start)
  if (shared <= 0) return 0
  return shared / Math.max(a.end - a.start, b.end - b.start)
}

export class Duplicates extends Effect.Service<Duplicates>()("services/import/Duplicates", {
  effect: Effect.gen(function*() {
    const activities = yield* ActivityRepo

    /** The stored activity this one is another recording of, or null. */
    const duplicateOf = Effect.fn("Duplicates.duplicateOf")(function*(draft: EncodedActivityDraft) {
      // the start of one whose date is unknown is a stand-in: it is the same as another only by its bytes
      if (draft.dateUnknown) return null
      const span = interval(draft)
      const candidates = yield* activities.startingBetween(draft.startTime - DUPLICATE_START_WINDOW_MS, draft.startTime + DUPLICATE_START_WINDOW_MS)
      const match = candidates.find((c) =>
        Math.abs(c.start_time - draft.startTime) <= DUPLICATE_START_WINDOW_MS &&
        overlapRatio(span, { start: c.start_time, end: c.start_time + Math.max(1, c.elapsed_time) * 1000 }) >= DUPLICATE_MIN_OVERLAP
      )
      return match?.id ?? null
    })

    /** `"Col du Galibier" of 2026-07-14 at 10:02 (activity-…)`: the activity a person knows, and its id. */
    const describe = (id: string) =>
      Effect.map(activities.findById(id), (activity) =>
        activity === null
          ? `"${id}"`
          : activity.dateUnknown
          ? `"${activity.name}" of unknown date ("${id}")`
          : `"${activity.name}" of ${activity.startDateLocal.slice(0, 10)} at ${activity.startDateLocal.slice(11, 16)} ("${id}")`)

    return { duplicateOf, describe } as const
  })
}) {}
