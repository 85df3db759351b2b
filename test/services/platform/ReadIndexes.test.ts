import { describe, expect, layer } from "@effect/vitest"
import { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import { imagesStatement, ONE_ACTIVITY, searchStatements } from "../../../src/services/activities/ActivityReads.ts"
import { ActivityRepo } from "../../../src/services/activities/ActivityRepo.ts"
import { ACTIVITY_SORTS } from "../../../src/schema/QueryParams.ts"
import { fileImportStatements } from "../../../src/services/import/FileImportReads.ts"
import { FileImportRepo } from "../../../src/services/import/FileImportRepo.ts"
import { makeDraft, seedActivity, TestDaemon } from "../../support/TestDaemon.ts"

/**
 * The reads the API and the import make on every request or file are answered through an
 * index: no query walks a whole table or sorts rows it then throws away, whatever the number
 * of activities. Each statement is explained: those of the SqlClient as they are captured, those
 * of the read connection as the reads build them.
 */

interface Captured {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

/** The statements `effect` runs, as compiled. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const captured: Array<Captured> = []
    yield* effect.pipe(Statement.withTransformer((statement) =>
      Effect.sync(() => {
        const [sql, params] = statement.compile()
        captured.push({ sql, params })
        return statement
      })
    ))
    return captured
  })

/** SQLite's plan for a statement, one line per step. */
const planOf = (statement: Captured) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement.sql}`, statement.params as Array<any>)
    return rows.map((r) => r.detail)
  }).pipe(Effect.orDie)

/**
 * Each step that reads a table goes through an index, and a page (a statement with a LIMIT) is
 * read in its order: sorting would read every matching row to return a few. A statement
 * returning every row it reads (the images of one page) may sort them, and a page may sort
 * the rows that tie on the first term of its order (the import log's rows of one
 * millisecond, by rowid): they are read in order and sorted group by group.
 */
const expectIndexed = (plan: ReadonlyArray<string>, statement: Captured) => {
  const message = `${statement.sql}\n${plan.join("\n")}`
  expect(plan.length, message).toBeGreaterThan(0)
  for (const step of plan) {
    if (/\bLIMIT\b/.test(statement.sql)) expect(step, message).not.toMatch(/TEMP B-TREE FOR (ORDER BY|RIGHT PART)/)
    if (/^(SCAN|SEARCH) /.test(step)) expect(step, message).toMatch(/USING (COVERING INDEX|INDEX|PRIMARY KEY|INTEGER PRIMARY KEY)/)
  }
}

const explainAll = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const statements = (yield* statementsOf(effect)).filter((s) => /^\s*SELECT/i.test(s.sql))
    expect(statements.length).toBeGreaterThan(0)
    const plans: Array<ReadonlyArray<string>> = []
    for (const statement of statements) {
      const plan = yield* planOf(statement)
      expectIndexed(plan, statement)
      plans.push(plan)
    }
    return plans
  })

describe("read indexes", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })((it) => {
    it.effect("the activity list in each of its orders, each of its filters, its count and one activity are read through indexes, the counts from the index alone", () =>
      Effect.gen(function*() {
        for (let i = 0; i < 30; i++) {
          yield* seedActivity(makeDraft({ startTime: Date.parse("2017-01-01T08:00:00Z") + i * 86_400_000 * 40, sportType: i % 3 === 0 ? "Run" : "Ride" }))
        }
        const searches = [
          { page: 1, size: 25 },
          { page: 40, size: 25, sportTypes: ["Ride"] as const, from: "2018-01-01" },
          { page: 2, size: 25, from: "2018-01-01", to: "2019-12-31" },
          { page: 1, size: 25, sportTypes: ["Ride"] as const },
          { page: 1, size: 25, hasGpx: true },
          { page: 3, size: 10, sportTypes: ["Ride"] as const, hasGpx: false, to: "2020-01-01" },
          // every order of the list, filtered or not
          ...ACTIVITY_SORTS.map((sort, i) => ({ page: 1 + (i % 3), size: 10, sort, ...(i % 2 === 0 ? { sportTypes: ["Ride"] as const, from: "2018-01-01" } : {}) }))
        ]
        // the reads of the API run on the read connection: their statements are explained here
        for (const search of searches) {
          const { count, page } = searchStatements(search)
          const countPlan = yield* planOf(count)
          expectIndexed(countPlan, count)
          expect(countPlan.join("\n"), count.sql).toMatch(/COVERING INDEX/)
          expectIndexed(yield* planOf(page), page)
        }
        const ids = (yield* ActivityRepo.pipe(Effect.flatMap((repo) => repo.search({ page: 1, size: 25 })))).activities.map((a) => a.id)
        const images = imagesStatement(ids)
        expectIndexed(yield* planOf(images), images)
        const one = { sql: ONE_ACTIVITY, params: [ids[0]!] }
        const onePlan = yield* planOf(one)
        expectIndexed(onePlan, one)
        expect(onePlan.join("\n")).toMatch(/SEARCH a USING (COVERING )?INDEX sqlite_autoindex_activities_1 \(id=\?\)/)
      }))

    it.effect("the duplicate check reads only the activities starting within a minute of the file's start, through an index", () =>
      Effect.gen(function*() {
        const repo = yield* ActivityRepo
        const start = Date.parse("2019-06-01T08:00:00Z")
        const near = yield* seedActivity(makeDraft({ startTime: start + 59_000 }))
        yield* seedActivity(makeDraft({ startTime: start - 61_000 }))
        yield* seedActivity(makeDraft({ startTime: start + 3_600_000 }))
        const found = yield* repo.startingBetween(start - 60_000, start + 60_000)
        expect(found.map((r) => r.id)).toEqual([near])
        const [plan] = yield* explainAll(repo.startingBetween(start - 60_000, start + 60_000))
        expect(plan!.join("\n")).toMatch(/SEARCH activities USING INDEX \w+ \(start_time>\? AND start_time<\?\)/)
      }))

    it.effect("the import log is listed newest first, counted by status and source, and looked up by file name, through indexes", () =>
      Effect.gen(function*() {
        const repo = yield* FileImportRepo
        for (let i = 0; i < 10; i++) {
          yield* repo.insert({
            id: `fileImport-${i}`, filename: `f${i}.gpx`, source: "gpxFile", status: i % 2 === 0 ? "success" : "failed", errorMessage: null,
            activityId: null, importedOn: 1_700_000_000_000 + i, contentHash: `h${i}`, sourceSize: 1, sourceMtime: 1, originalFile: null
          })
        }
        // the import log is read on the read connection: its statements are explained here
        for (const search of [{ offset: 0, limit: 25 }, { offset: 5, limit: 25, statuses: ["failed"], sources: ["gpxFile"] }, { offset: 0, limit: 25, statuses: [] }]) {
          const { count, page } = fileImportStatements(search)
          expectIndexed(yield* planOf(count), count)
          expectIndexed(yield* planOf(page), page)
        }
        // the rows of one file name are few: sorting them is cheap
        const { page: byName } = fileImportStatements({ offset: 0, limit: 25, filename: "f3.gpx" })
        expect((yield* planOf(byName)).join("\n")).toMatch(/SEARCH file_imports USING (COVERING )?INDEX file_imports_filename \(filename=\?\)/)
        const [plan] = yield* explainAll(repo.findCommitted("f3.gpx", "h3", 1, 1))
        expect(plan!.join("\n")).toMatch(/file_imports_filename|file_imports_hash/)
      }))
  })
})
