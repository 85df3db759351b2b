import { Effect, Queue } from "effect"

/**
 * File names of the watch folder waiting for the ImportWorker, each at most once in the
 * queue however often the watcher and the rescans offer it.
 */
export class ImportQueue extends Effect.Service<ImportQueue>()("services/import/ImportQueue", {
  scoped: Effect.gen(function*() {
    const queue = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
    const pending = new Set<string>()

    const offer = (filename: string) =>
      Effect.suspend(() => {
        if (pending.has(filename)) return Effect.void
        pending.add(filename)
        return Queue.offer(queue, filename)
      })

    /** Takes the next name; `done` must be called once it has been handled. */
    const take = Queue.take(queue)
    const done = (filename: string) => Effect.sync(() => pending.delete(filename))

    return { offer, take, done, size: Effect.sync(() => pending.size) } as const
  })
}) {}
