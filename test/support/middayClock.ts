import { Clock, Effect } from "effect"

/**
 * The real clock moved to today's 12:00 UTC: sleeps are real, but a daily window (which
 * resets at midnight UTC) is never minutes from its reset, whenever the test runs.
 */
export const middayClock = (): Clock.Clock => {
  const real = Clock.make()
  const today = new Date()
  const offset = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12) - Date.now()
  const millis = () => real.unsafeCurrentTimeMillis() + offset
  const nanos = () => real.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: nanos,
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration) => real.sleep(duration)
  }
}
