import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import { formatOf } from "../services/import/files/ActivityFileName.ts"
import type { ImportOutcome } from "../services/import/ImportOutcome.ts"

/**
 * One span per imported file, from the moment the worker takes it until its commit, across
 * both stages (parse ahead, then commit). It is a child of the request that queued the file
 * (an upload), so that the upload's trace runs on to the committed activity; files dropped
 * into the watch folder start a trace of their own.
 */
export interface ImportSpan {
  /** runs `self` inside the file's span */
  readonly within: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** ends the span with the outcome of the import */
  readonly end: (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>
}

export const startImportSpan = (filename: string, origin: Option.Option<Tracer.AnySpan>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const span = yield* Effect.makeSpanScoped("ImportWorker.import", {
      kind: "consumer",
      ...(Option.isSome(origin) ? { parent: origin.value } : { root: true }),
      attributes: { "file.name": filename, "file.format": formatOf(filename) ?? "unsupported" }
    }).pipe(Scope.extend(scope))
    const importSpan: ImportSpan = {
      within: (self) => Effect.withParentSpan(self, span),
      end: (exit) => Scope.close(scope, exit)
    }
    return importSpan
  })

/** The attributes an operator searches imports by: outcome and the activities it made. */
export const annotateOutcome = (outcome: ImportOutcome) =>
  Effect.annotateCurrentSpan({
    "import.status": outcome.status,
    "file_import.id": outcome.fileImportId,
    "activity.ids": outcome.activityIds.join(","),
    ...(outcome.errorMessage ? { "import.error": outcome.errorMessage } : {})
  })
