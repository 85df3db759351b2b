import { Clock, Duration, Effect, Fiber, FiberSet } from "effect"

/**
 * The last result of `evaluate`, renewed when it is older than `freshFor`: one evaluation at a
 * time, forked in the caller's scope, while the result it renews is answered at once. A result
 * older than `answerFor`, or none yet, is waited for (the renewal under way, or a new one).
 * A result's age counts from the end of its evaluation, so that evaluations start at most once
 * per `freshFor` however long each takes.
 */
export const lastEvaluation = <A>(evaluate: Effect.Effect<A>, freshFor: Duration.DurationInput, answerFor: Duration.DurationInput) =>
  Effect.gen(function*() {
    const fork = yield* FiberSet.makeRuntime<never, A, never>()
    const fresh = Duration.toMillis(freshFor)
    const answered = Duration.toMillis(answerFor)
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
      const renewal = renew()
      return age < answered ? Effect.succeed(last!.value) : Fiber.join(renewal)
    })
  })
