import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { StoragePaths } from "../../platform/StoragePaths.ts"

/**
 * The original of every archive dropped into the watch folder stays in storage
 * (`files/archives/<archive>--<its name>`) from its unpacking until the last of its files is
 * imported: the archive is named by every file kept for it (ExportMetadata's `archive`), and
 * once none is, its copy and what it said (a Garmin export's summaries) are forgotten. A stop
 * in between finds them still there; `sweep`, at start, removes what no waiting file names.
 */

const SEPARATOR = "--"

export class KeptArchives extends Effect.Service<KeptArchives>()("services/import/KeptArchives", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const dir = (yield* StoragePaths).archivesDir

    /** Keeps the archive at `from` (a hard link, a copy across file systems) as the original of `archive`. */
    const keep = Effect.fn("KeptArchives.keep")(function*(from: string, archive: string) {
      yield* Effect.sync(() => {
        const to = path.join(dir, `${archive}${SEPARATOR}${path.basename(from)}`)
        try {
          fs.linkSync(from, to)
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code
          if (code === "EEXIST") return
          if (code !== "EXDEV" && code !== "EPERM") throw e
          fs.copyFileSync(from, `${to}.part`)
          fs.renameSync(`${to}.part`, to)
        }
      })
    })

    /**
     * Whether `archive` is done (no file of it waits): then what it said is forgotten, within the
     * caller's transaction; its copy goes with `remove` once that commits.
     */
    const forgetIfDone = Effect.fn("KeptArchives.forgetIfDone")(function*(archive: string) {
      const [waiting] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM export_metadata WHERE archive = ${archive}`
      if (waiting!.n > 0) return false
      yield* sql`DELETE FROM export_summaries WHERE archive = ${archive}`
      return true
    }, Effect.orDie)

    /** Removes the copies of `archive`. */
    const remove = Effect.fn("KeptArchives.remove")(function*(archive: string) {
      yield* Effect.sync(() => {
        for (const name of fs.readdirSync(dir)) if (name.startsWith(`${archive}${SEPARATOR}`)) fs.rmSync(path.join(dir, name), { force: true })
      })
    })

    /** What a stop left: the summaries and copies of archives none of whose files waits any more, and copies cut short. */
    const sweep = Effect.fn("KeptArchives.sweep")(function*() {
      yield* sql`DELETE FROM export_summaries WHERE archive NOT IN (SELECT archive FROM export_metadata WHERE archive IS NOT NULL)`.pipe(Effect.orDie)
      const named = new Set((yield* sql<{ archive: string }>`SELECT DISTINCT archive FROM export_metadata WHERE archive IS NOT NULL`.pipe(Effect.orDie)).map((r) => r.archive))
      yield* Effect.sync(() => {
        for (const name of fs.readdirSync(dir)) {
          const at = name.indexOf(SEPARATOR)
          if (name.endsWith(".part") || at === -1 || !named.has(name.slice(0, at))) fs.rmSync(path.join(dir, name), { force: true })
        }
      })
    })

    return { keep, forgetIfDone, remove, sweep } as const
  })
}) {}
