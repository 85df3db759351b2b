import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"

export interface LastEvaluationOptions {
  /** how long a result answers without a renewal */
  readonly freshFor: Duration.DurationInput
  /** how long a caller that found the result older waits for its renewal before it is answered the older one */
  readonly waitFor: Duration.DurationInput
  /** how old a result may be and still answer a caller whose renewal is late; older (or none yet), the renewal is waited for */
  readonly answerFor: Duration.DurationInput
}

/**
 * The last result of `evaluate`, renewed when it is older than `freshFor`: one evaluation at a
 * time, forked in the caller's scope, whatever the number of callers. A caller that finds the
 * result older waits `waitFor` at most for the renewal (it usually takes less: the caller gets
 * the new result), then is answered the older one while the renewal goes on; only a result older
 * than `answerFor`, or none yet, is waited for to the end. A result's age counts from the end of
 * its evaluation, so that evaluations start at most once per `freshFor` however long each takes.
 */
export const lastEvaluation = <A>(evaluate: Effect.Effect<A>, options: LastEvaluationOptions) =>
  Effect.gen(function*() {
    const fork = yield* FiberSet.makeRuntime<never, A, never>()
    const fresh = Duration.toMillis(options.freshFor)
    const answered = Duration.toMillis(options.answerFor)
    let last: { readonly value: A; readonly at: number } | undefined
    let running: Fiber.RuntimeFiber<A> | undefined
    const renew = () => {
      if (running !== undefined) return running
      const fiber = fork(Effect.tap(evaluate, (value) => Effect.map(Clock.currentTimeMillis, (at) => void (last = { value, at }))))
      running = fiber
      // called at once when the fiber is already done
      fiber.addObserver(() => {
        if (running === fiber) running = undefined
      })
      return fiber
    }
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const age = last === undefined ? Infinity : now - last.at
      if (age < fresh) return Effect.succeed(last!.value)
      const renewal = Fiber.join(renew())
      if (age >= answered) return renewal
      const older = last!.value
      return Effect.timeoutTo(renewal, { duration: options.waitFor, onSuccess: (value) => value, onTimeout: () => older })
    })
  })
