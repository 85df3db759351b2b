import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, HashMap, Layer, Logger, Metric, Option, Ref, TestClock } from "effect"
import { supervise } from "../../../src/services/platform/supervise.ts"
import { restartBackoff, SupervisionPolicy, Supervisor } from "../../../src/services/platform/Supervisor.ts"
import { fiberRestarts } from "../../../src/services/platform/Metrics.ts"

interface Line {
  readonly message: string
  readonly channel: string | undefined
  readonly fiber: string | undefined
}

const collect = (lines: Array<Line>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) => {
      const get = (key: string) => Option.getOrUndefined(HashMap.get(annotations, key)) as string | undefined
      lines.push({ message: String(Array.isArray(message) ? message[0] : message), channel: get("channel"), fiber: get("fiber") })
    })
  )

const withSupervisor = (lines: Array<Line>) => Supervisor.Default.pipe(Layer.merge(collect(lines)))

/** A loop that fails `times` times, then runs until interrupted. */
const failingTimes = (runs: Ref.Ref<number>, times: number) =>
  Effect.flatMap(Ref.updateAndGet(runs, (n) => n + 1), (n) => (n <= times ? Effect.fail(new Error(`broken ${n}`)) : Effect.never))

const report = (name: string) =>
  Effect.flatMap(Supervisor, (s) => Effect.map(s.snapshot, (all) => all.find((f) => f.name === name)!))

describe("restartBackoff", () => {
  const policy = SupervisionPolicy.defaultValue()
  it("doubles from 1 second with a jitter of 0.8 to 1.2 and never passes 5 minutes", () => {
    assert.strictEqual(Duration.toMillis(restartBackoff(policy, 1, 0)), 800)
    assert.strictEqual(Duration.toMillis(restartBackoff(policy, 1, 0.999999)), 1200)
    assert.strictEqual(Duration.toMillis(restartBackoff(policy, 4, 0.5)), 8000)
    assert.strictEqual(Duration.toMillis(restartBackoff(policy, 9, 0.999)), 300_000)
    assert.strictEqual(Duration.toMillis(restartBackoff(policy, 1000, 0.5)), 300_000)
  })
})

describe("supervise", () => {
  it.scoped("restarts a failing loop with growing pauses, logs each reason in the daemon channel and reports it failing after 5 in a row", () => {
    const lines: Array<Line> = []
    return Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      yield* supervise("Flaky", failingTimes(runs, 6))
      yield* Effect.yieldNow()

      let fiber = yield* report("Flaky")
      assert.strictEqual(fiber.state, "restarting")
      assert.strictEqual(fiber.consecutiveFailures, 1)
      assert.strictEqual(fiber.lastError, "Error: broken 1")
      assert.isTrue(fiber.backoffMillis! >= 800 && fiber.backoffMillis! <= 1200)
      assert.isFalse(fiber.failing)

      // four more failures, each after its pause (1, 2, 4, 8 s, jittered)
      for (let i = 0; i < 4; i++) {
        yield* TestClock.adjust(Duration.millis((yield* report("Flaky")).backoffMillis!))
      }
      fiber = yield* report("Flaky")
      assert.strictEqual(yield* Ref.get(runs), 5)
      assert.strictEqual(fiber.consecutiveFailures, 5)
      assert.strictEqual(fiber.restarts, 4)
      assert.isTrue(fiber.backoffMillis! >= 12_800 && fiber.backoffMillis! <= 19_200)
      assert.isTrue(fiber.failing)

      // the sixth run fails too; the seventh keeps running: still failing until it has run a minute
      yield* TestClock.adjust(Duration.millis(fiber.backoffMillis!))
      yield* TestClock.adjust(Duration.millis((yield* report("Flaky")).backoffMillis!))
      fiber = yield* report("Flaky")
      assert.strictEqual(fiber.state, "running")
      assert.strictEqual(fiber.restarts, 6)
      assert.isTrue(fiber.failing)
      // the restarts metric counts them too, under the loop's name
      assert.strictEqual((yield* Metric.value(Metric.tagged(fiberRestarts, "fiber", "Flaky"))).count, 6)
      yield* TestClock.adjust("1 minute")
      fiber = yield* report("Flaky")
      assert.strictEqual(fiber.consecutiveFailures, 0)
      assert.isFalse(fiber.failing)
      assert.strictEqual(fiber.lastError, "Error: broken 6")

      const restarts = lines.filter((l) => l.message.startsWith("Flaky stopped unexpectedly"))
      assert.strictEqual(restarts.length, 6)
      assert.isTrue(restarts.every((l) => l.channel === "daemon" && l.fiber === "Flaky"))
      assert.include(restarts[0]!.message, "(Error: broken 1); restarting in")
      assert.include(restarts[4]!.message, "failure 5 in a row; it keeps failing")
    }).pipe(Effect.provide(withSupervisor(lines)))
  })

  it.scoped("a run of a minute without failing starts the count of failures in a row over", () =>
    Effect.gen(function*() {
      const fail = yield* Ref.make(false)
      // fails whenever asked to, otherwise runs for 2 minutes and then fails
      const loop = Effect.flatMap(Ref.get(fail), (now) => (now ? Effect.fail("told to") : Effect.zipRight(Effect.sleep("2 minutes"), Effect.fail("after a long run"))))
      yield* supervise("Steady", loop)
      yield* Effect.yieldNow()
      yield* TestClock.adjust("2 minutes")
      assert.strictEqual((yield* report("Steady")).consecutiveFailures, 1)
      yield* TestClock.adjust((yield* report("Steady")).backoffMillis!)
      yield* TestClock.adjust("2 minutes")
      const fiber = yield* report("Steady")
      assert.strictEqual(fiber.consecutiveFailures, 1)
      assert.strictEqual(fiber.restarts, 1)
      assert.strictEqual(fiber.lastError, "after a long run")
    }).pipe(Effect.provide(withSupervisor([]))))

  it.scoped("a loop that ends on its own is restarted; a defect is caught like a failure", () =>
    Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      yield* supervise("Ends", Effect.flatMap(Ref.updateAndGet(runs, (n) => n + 1), (n) => (n === 1 ? Effect.void : n === 2 ? Effect.die(new TypeError("boom")) : Effect.never)))
      yield* Effect.yieldNow()
      assert.strictEqual((yield* report("Ends")).lastError, "the loop ended on its own")
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual((yield* report("Ends")).lastError, "TypeError: boom")
      yield* TestClock.adjust("5 seconds")
      const fiber = yield* report("Ends")
      assert.strictEqual(fiber.state, "running")
      assert.strictEqual(fiber.restarts, 2)
      assert.strictEqual(yield* Ref.get(runs), 3)
    }).pipe(Effect.provide(withSupervisor([]))))

  it.scoped("interruption (shutdown) stops the loop without a restart and marks it stopped", () => {
    const lines: Array<Line> = []
    return Effect.gen(function*() {
      const fiber = yield* supervise("Quiet", Effect.never)
      yield* Effect.yieldNow()
      assert.strictEqual((yield* report("Quiet")).state, "running")
      yield* Fiber.interrupt(fiber)
      const after = yield* report("Quiet")
      assert.strictEqual(after.state, "stopped")
      assert.isTrue(after.failing)
      assert.strictEqual(lines.length, 0)
    }).pipe(Effect.provide(withSupervisor(lines)))
  })
})
