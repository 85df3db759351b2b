import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Worker } from "node:worker_threads"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"
import { storedTrainingBasis } from "./storedTrainingBasis.ts"
import type { BasisRequest, BasisResponse } from "./TrainingBasisThread.ts"

/**
 * A worker thread that analyses activities from their stored streams (TrainingBasisThread), for
 * the analysis of a whole history after an upgrade: inflating and parsing ten thousand
 * activities' streams would hold the event loop for minutes, a few dozen milliseconds at a
 * time. Started for one run (`scoped`) and ended with it: an idle daemon holds no such thread.
 * Should the thread fail, the rest is analysed on the event loop, one activity at a time.
 *
 * Built (dist/), the worker runs its compiled entry; from source (tests, tsx), the parse
 * worker's bootstrap loads the entry bundled into one module.
 */
const fromSource = import.meta.url.endsWith(".ts")
const workerUrl = fromSource ? new URL("../import/ParseWorkerBootstrap.mjs", import.meta.url) : new URL("./TrainingBasisThread.js", import.meta.url)
const workerData = fromSource ? { entry: new URL("./TrainingBasisThread.ts", import.meta.url).href } : {}

/** The worker's heap: the streams of the longest activity, parsed, and its 1 s series. */
const HEAP_MB = 256

export const scopedBasisWorker: Effect.Effect<(data: Uint8Array | null) => Effect.Effect<TrainingBasis>, never, Scope.Scope> = Effect.gen(function*() {
  const worker = yield* Effect.acquireRelease(
    Effect.sync(() => new Worker(workerUrl, { workerData, resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } })),
    (w) => Effect.promise(() => w.terminate())
  )
  const waiting = new Map<number, Deferred.Deferred<TrainingBasis>>()
  let failed = false
  let nextId = 1
  const fail = () => {
    failed = true
    // the activities asked for are analysed here instead
    for (const answer of waiting.values()) Deferred.unsafeDone(answer, Effect.die("the analysis thread stopped"))
    waiting.clear()
  }
  worker.on("message", (m: BasisResponse) => {
    const answer = waiting.get(m.id)
    waiting.delete(m.id)
    if (answer !== undefined) Deferred.unsafeDone(answer, Effect.succeed(m.basis))
  })
  worker.on("error", fail)
  worker.on("exit", fail)

  return (data: Uint8Array | null) =>
    Effect.gen(function*() {
      if (failed) return storedTrainingBasis(data)
      const answer = yield* Deferred.make<TrainingBasis>()
      const id = nextId++
      waiting.set(id, answer)
      // copied, not transferred: should the thread fail, the bytes are analysed here
      worker.postMessage({ id, data } satisfies BasisRequest)
      return yield* Deferred.await(answer).pipe(Effect.catchAllDefect(() => Effect.sync(() => storedTrainingBasis(data))))
    })
})
