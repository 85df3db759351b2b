import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Tracer from "effect/Tracer"

/**
 * File names of the watch folder waiting for the ImportWorker, each at most once in the
 * queue however often the watcher and the rescans offer it. A name offered from within a
 * span (an upload's request) keeps that span as its origin, so that its import joins the
 * request's trace. A name offered while it is being imported (the file changed meanwhile) is
 * queued again once that import is done, so that the change is read. A name handed back to be
 * tried again later (the disk was full, an unexpected failure) still waits: it is counted in
 * `size` until it is offered again, or `forget` says it is gone, so that the batch it belongs
 * to is not over while it waits.
 */
export class ImportQueue extends Effect.Service<ImportQueue>()("services/import/ImportQueue", {
  scoped: Effect.gen(function*() {
    const queue = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
    const pending = new Set<string>()
    /** taken and not done yet */
    const taken = new Set<string>()
    /** offered again while taken */
    const again = new Set<string>()
    const origins = new Map<string, Tracer.AnySpan>()
    /** done, and to be offered again later */
    const later = new Set<string>()

    const offer = (filename: string) =>
      Effect.flatMap(Effect.option(Effect.currentParentSpan), (span) => {
        later.delete(filename)
        if (Option.isSome(span) && !origins.has(filename)) origins.set(filename, span.value)
        if (taken.has(filename)) return Effect.sync(() => again.add(filename))
        if (pending.has(filename)) return Effect.void
        pending.add(filename)
        return Queue.offer(queue, filename)
      })

    /** Takes the next name; `done` must be called once it has been handled. */
    const take = Effect.tap(Queue.take(queue), (filename) => Effect.sync(() => taken.add(filename)))
    /** The name is handled; `offeredLater`: it is to be tried again later, and waits till then. */
    const done = (filename: string, offeredLater = false) =>
      Effect.suspend(() => {
        taken.delete(filename)
        if (again.delete(filename)) return Queue.offer(queue, filename)
        origins.delete(filename)
        pending.delete(filename)
        if (offeredLater) later.add(filename)
        return Effect.void
      })
    /** A name waiting to be offered again is gone: it waits no more. */
    const forget = (filename: string) => Effect.sync(() => void later.delete(filename))
    /** The span of the request that queued the file, if one did. */
    const origin = (filename: string) => Effect.sync(() => Option.fromNullable(origins.get(filename)))

    return {
      offer,
      take,
      done,
      forget,
      origin,
      /** whether the name waits to be offered again (see `done`) */
      waitsLater: (filename: string) => Effect.sync(() => later.has(filename)),
      /** the names queued, being imported, or waiting to be offered again */
      size: Effect.sync(() => pending.size + later.size)
    } as const
  })
}) {}
