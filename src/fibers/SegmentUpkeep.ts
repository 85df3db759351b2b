import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { decodeStreams } from "../services/activities/StreamsCodec.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { supervise } from "../services/platform/supervise.ts"
import { encodeTrack } from "../services/segments/SegmentTrack.ts"
import { SegmentStore } from "../services/segments/SegmentStore.ts"

/**
 * Keeps the segments current in the background: at start, the tracks of the activities stored
 * before segments existed are made (their streams read once); then each segment not yet matched
 * against the history (made since, its sport group changed, or cut short by a stop) is matched a
 * batch of candidate tracks at a time, each batch a transaction that moves its cursor on, so
 * that its page shows the progress and a stop resumes where it was. A pass runs at start, then
 * each time the store says there is work (a segment made or its group changed, an activity
 * stored without its track), at once rather than at the next tick of a clock.
 */

const BACKFILL_BATCH = 100

export const SegmentUpkeepLive = Layer.scopedDiscard(Effect.gen(function*() {
  const store = yield* SegmentStore
  const encode = (data: Uint8Array) => encodeTrack(decodeStreams(data))

  const pass = Effect.gen(function*() {
    let made = 0
    for (;;) {
      const n = yield* store.backfill(BACKFILL_BATCH, encode)
      made += n
      if (n < BACKFILL_BATCH) break
      yield* Effect.yieldNow()
    }
    if (made > 0) yield* Effect.logInfo(`segment tracks made for ${made.toLocaleString("en-US")} activities stored before`).pipe(inChannel("daemon"))
    for (const id of yield* store.pendingSegments()) {
      const started = Date.now()
      while (yield* store.matchBatch(id)) yield* Effect.yieldNow()
      yield* Effect.logInfo(`segment ${id} matched against the history (${Duration.format(Duration.millis(Date.now() - started))})`).pipe(inChannel("daemon"))
    }
  })

  yield* supervise("SegmentUpkeep", Effect.forever(Effect.zipRight(pass, store.awaitWork)))
}))
