import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { inSlices } from "../../src/http/inSlices.ts"

/** Holds the thread for at least `ms` of wall time. */
const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // a task that takes its time
  }
}

describe("inSlices", () => {
  it.live("runs every task in order, later than it was given, and gives the loop its turn after a slice's time rather than after every task", () =>
    Effect.gen(function*() {
      const run = inSlices(5)
      const ran: Array<number> = []
      let ranWhenTheLoopGotItsTurn: number | undefined
      const { given } = yield* Effect.async<{ given: number }>((resume) => {
        for (let i = 0; i < 50; i++) {
          run(() => {
            ran.push(i)
            // what the loop queues while the first slice runs
            if (i === 0) setImmediate(() => (ranWhenTheLoopGotItsTurn = ran.length))
            busy(1)
            if (i === 49) resume(Effect.succeed({ given }))
          })
        }
        const given = ran.length
      })
      expect(given).toBe(0)
      expect(ran).toEqual(Array.from({ length: 50 }, (_, i) => i))
      // tasks of 1 ms in slices of 5 ms: six at most before the loop's turn (fewer on a busy machine)
      expect(ranWhenTheLoopGotItsTurn).toBeGreaterThanOrEqual(1)
      expect(ranWhenTheLoopGotItsTurn).toBeLessThanOrEqual(6)
    }))
})
