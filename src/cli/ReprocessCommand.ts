import { Args, Command, Options } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { ActivityReprocess, ReprocessError } from "../services/import/ActivityReprocess.ts"
import { UsageError } from "../services/platform/ProgramErrors.ts"
import { TrainingRecompute } from "../services/training/TrainingRecompute.ts"

/** A progress line at most this often, so that a long run shows it is going on. */
const PROGRESS_EVERY_MS = 5_000

/**
 * `app:activities:reprocess [--all | <id>...]`: activities computed again from their kept
 * originals, the user's edits kept. Safe while the daemon runs (one transaction each). `layer`
 * opens the storage, once the arguments are checked.
 */
export const makeReprocessCommand = <E>(layer: Layer.Layer<ActivityReprocess | TrainingRecompute, E>) => Command.make(
  "app:activities:reprocess",
  {
    all: Options.boolean("all").pipe(Options.withDescription("every activity that has a kept original file")),
    ids: Args.text({ name: "id" }).pipe(Args.withDescription("activity ids (activity-…)"), Args.repeated)
  },
  ({ all, ids }) =>
    Effect.gen(function*() {
      // checked before the database is opened
      if (!all && ids.length === 0) return yield* new UsageError({ message: "Name the activities to reprocess, or pass --all." })
      yield* reprocessAll(all, ids).pipe(Effect.provide(layer))
    })
).pipe(Command.withDescription("Compute activities again from their kept original files (after an upgrade), keeping name, description, sport, gear and commute"))

const reprocessAll = (all: boolean, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const reprocess = yield* ActivityReprocess
    const targets = all ? yield* reprocess.allWithOriginals : ids
    yield* Console.log(`Reprocessing ${targets.length} activit${targets.length === 1 ? "y from its original file" : "ies from their original files"}.`)
    const started = Date.now()
    let lastLine = started
    let done = 0
    const problems: Array<string> = []
    for (const id of targets) {
      yield* reprocess.one(id).pipe(Effect.catchTag("ReprocessError", (e) => Effect.sync(() => problems.push(e.message))))
      done++
      if (Date.now() - lastLine >= PROGRESS_EVERY_MS && done < targets.length) {
        lastLine = Date.now()
        const rate = done / ((lastLine - started) / 1000)
        yield* Console.log(`${done} of ${targets.length} (${rate.toFixed(1)}/s, about ${Math.ceil((targets.length - done) / rate)} s left)`)
      }
    }
    for (const problem of problems) yield* Console.error(problem)
    yield* Console.log(`Reprocessed ${done - problems.length} of ${targets.length}; ${problems.length} left as they were.`)
    // a reprocessed activity keeps the sport its athlete chose: its training load follows it now
    const training = yield* (yield* TrainingRecompute).run()
    if (training.analysed + training.recomputed > 0) {
      yield* Console.log(`Training analysis: ${training.analysed} computed from stored streams, ${training.recomputed} training loads recomputed.`)
    }
    if (problems.length > 0 && problems.length === targets.length) {
      return yield* new ReprocessError({ message: "No activity could be reprocessed." })
    }
  })
