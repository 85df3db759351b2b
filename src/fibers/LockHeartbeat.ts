import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { HEARTBEAT_INTERVAL_MS, HeldLocks } from "../services/platform/StorageLock.ts"

/**
 * The heartbeat of the locks the daemon holds (HeldLocks): each lock file is touched every
 * `interval`, so that a daemon on another host or in another container, which cannot see this
 * one's pid, knows it is alive; a lock file that went away with its folder is written again.
 * A beat that fails harms nothing: the next one tries again.
 */
export const lockHeartbeat = (interval: Duration.DurationInput = Duration.millis(HEARTBEAT_INTERVAL_MS)) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const locks = yield* HeldLocks
    const held = [locks.storage, locks.watch].flatMap((lock) => (lock === null ? [] : [lock]))
    if (held.length === 0) return
    yield* Effect.sync(() => {
      for (const lock of held) lock.refresh()
    }).pipe(Effect.repeat(Schedule.spaced(interval)), Effect.forkScoped)
  }))

export const LockHeartbeatLive = lockHeartbeat()
