import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Queue, TestClock } from "effect"
import { lastEvaluation } from "../../src/http/lastEvaluation.ts"

/** What the health probes are answered from: the checks' last evaluation, renewed in the background. */
describe("lastEvaluation", () => {
  it.scoped("waits for the first result; answers a fresh one without evaluating; answers an older one at once while one renewal runs for every caller; waits again past its bound", () =>
    Effect.gen(function*() {
      // each evaluation takes its result from here: it lasts until the test gives one
      const results = yield* Queue.unbounded<number>()
      let evaluations = 0
      const evaluate = Effect.tap(Queue.take(results), () => Effect.sync(() => evaluations++))
      const last = yield* lastEvaluation(evaluate, "1 second", "1 minute")

      const first = yield* Effect.fork(last)
      yield* Queue.offer(results, 1)
      expect(yield* Fiber.join(first)).toBe(1)
      yield* TestClock.adjust("500 millis")
      expect(yield* last).toBe(1)
      expect(evaluations).toBe(1)

      // older than a second: answered at once, with one renewal under way for all callers
      yield* TestClock.adjust("2 seconds")
      expect(yield* last).toBe(1)
      expect(yield* last).toBe(1)
      yield* Effect.yieldNow()
      expect(yield* Queue.size(results)).toBe(-1)
      yield* Queue.offer(results, 2)
      let renewed = yield* last
      while (renewed !== 2) {
        yield* Effect.yieldNow()
        renewed = yield* last
      }
      expect(evaluations).toBe(2)

      // older than a minute: waited for
      yield* TestClock.adjust("2 minutes")
      const late = yield* Effect.fork(last)
      yield* Effect.yieldNow()
      expect(late.unsafePoll()).toBeNull()
      yield* Queue.offer(results, 3)
      expect(yield* Fiber.join(late)).toBe(3)
      expect(evaluations).toBe(3)
    }))
})
