import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ImportWorkerLive } from "../../src/fibers/ImportWorker.ts"
import { ImportBatchGrace } from "../../src/services/import/ImportProgress.ts"
import { ImportQueue } from "../../src/services/import/ImportQueue.ts"
import { dayStart, fitActivity, importRows, scopedRoot, servicesLayer, waitFor } from "../support/ImportHarness.ts"

describe("ImportWorker (parse ahead on every worker, commit in queue order)", () => {
  it.scopedLive("files are committed in queue order though a later, smaller file is parsed first", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ IMPORT_PARSE_WORKERS: "2" })
      // a day-long ride first, then small ones that the second worker parses meanwhile
      const names = ["day-long.fit", "small-1.fit", "small-2.fit", "small-3.fit"]
      fs.writeFileSync(path.join(root.watchDir, names[0]!), fitActivity({ start: dayStart(0), seconds: 24 * 3600 }))
      for (const [i, name] of names.slice(1).entries()) fs.writeFileSync(path.join(root.watchDir, name), fitActivity({ start: dayStart(i + 1), seconds: 600 }))
      yield* Effect.gen(function*() {
        const queue = yield* ImportQueue
        for (const name of names) yield* queue.offer(name)
        const rows = yield* waitFor("four import rows", Effect.map(importRows(), (r) => (r.length === 4 ? r : undefined)), { timeout: "60 seconds" })
        expect(rows.map((r) => [r.filename, r.status])).toEqual(names.map((n) => [n, "success"]))
      }).pipe(Effect.provide(Layer.provideMerge(ImportWorkerLive, servicesLayer(root))))
    }), { timeout: 90_000 })

  it.scopedLive("stops at once after a batch: the batch's grace time (an hour here) is not waited out when the worker's scope closes", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      fs.writeFileSync(path.join(root.watchDir, "one.fit"), fitActivity({ start: dayStart(0), seconds: 600 }))
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Layer.provideMerge(ImportWorkerLive, servicesLayer(root)).pipe(Layer.provide(Layer.succeed(ImportBatchGrace, Duration.hours(1)))),
        scope
      )
      yield* Effect.gen(function*() {
        yield* (yield* ImportQueue).offer("one.fit")
        yield* waitFor("the import row", Effect.map(importRows(), (r) => (r[0]?.status === "success" ? r : undefined)))
      }).pipe(Effect.provide(context))
      // the queue is empty: the batch waits its grace time for more files, which must not hold the stop
      yield* Scope.close(scope, Exit.void)
    }), { timeout: 90_000 })
})
