import { describe, expect, layer } from "@effect/vitest"
import Database from "better-sqlite3"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, HashMap, Layer, Logger, LogLevel, Tracer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { ApiAuthorization } from "../../src/http/AuthorizationLive.ts"
import { DashboardSessions } from "../../src/http/dashboard/DashboardSessions.ts"
import { DirectRoutes } from "../../src/http/DirectRoutes.ts"
import { HotReads } from "../../src/http/HotReads.ts"
import { RequestLog } from "../../src/http/RequestLog.ts"
import { RouteTable } from "../../src/http/RouteTable.ts"
import { ServedAnswers } from "../../src/http/ServedAnswers.ts"
import { WrongKeys, WrongKeysPolicy } from "../../src/http/WrongKeys.ts"
import { ActivityReads } from "../../src/services/activities/ActivityReads.ts"
import { ActivityRepo } from "../../src/services/activities/ActivityRepo.ts"
import { FileImportRepo } from "../../src/services/import/FileImportRepo.ts"
import { AppConfig } from "../../src/services/platform/AppConfig.ts"
import { type Answer, seedActivity, seedGear, send, TestDaemon } from "../support/TestDaemon.ts"

/**
 * The direct routes answer the busiest reads before the HTTP app. What they answer must be the
 * app's answer byte for byte, whatever it is (an answer, a refused key, an unknown id); they
 * take only what they can answer whole, so that no read runs twice; each answer is traced and
 * logged as the app's are, and no answer may outlive the state of the database it was read from.
 */

const TableLive = RouteTable.layer([])

/** Wrong keys answered at once: the tests compare many refused keys, which would otherwise be slowed. */
const UnlimitedWrongKeys = Layer.succeed(WrongKeysPolicy, { free: Infinity, refuseAt: Infinity })

const DirectRoutesLive = Layer.merge(DirectRoutes.Default, TableLive).pipe(
  Layer.provide([HotReads.Default, ServedAnswers.Default, RequestLog.Default]),
  Layer.provide(TableLive),
  Layer.provide(ApiAuthorization.Default),
  Layer.provide([DashboardSessions.Default, WrongKeys.Default]),
  Layer.provide(UnlimitedWrongKeys)
)


/** The app alone: a second daemon over the daemon's storage, whose listener has no direct routes. */
const appAlone = Effect.flatMap(TestDaemon, (daemon) =>
  Layer.build(TestDaemon.layer({
    apiKey: daemon.apiKey,
    directRoutes: false,
    env: { STORAGE_DIR: daemon.storageDir, WATCH_DIR: daemon.watchDir }
  }).pipe(Layer.provide(UnlimitedWrongKeys))))

const LEFT_TO_THE_APP = 599

/** A server whose only handler is the direct routes' `answer` (over the route table's lookup): 599 marks a request they left to the app. */
const serverOf = (routes: DirectRoutes) =>
  Effect.acquireRelease(
    Effect.flatMap(RouteTable, (table) => Effect.async<ReturnType<typeof createServer>>((resume) => {
      const server = createServer((request, response) => {
        const found = table.find(request.method ?? "GET", request.url ?? "/")
        if (found === undefined || !routes.answer(request, response, found)) {
          response.writeHead(LEFT_TO_THE_APP)
          response.end()
        }
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    })),
    (server) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

const statusAt = (base: string, path: string, init: RequestInit = {}) =>
  Effect.promise(() => fetch(base + path, init).then(async (r) => ({ status: r.status, text: await r.text() })))

/** Every header but the date, which differs from one second to the next. */
const headersOf = (answer: Answer) => Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name !== "date"))

const seedHistory = Effect.gen(function*() {
  const repo = yield* ActivityRepo
  const gear = yield* seedGear({ name: "Gravel bike" })
  const ids: Array<string> = []
  for (let i = 0; i < 30; i++) {
    const day = String(1 + i).padStart(2, "0")
    ids.push(yield* seedActivity({
      startTime: Date.parse(`2023-01-${day}T08:00:00Z`),
      startDateLocal: `2023-01-${day}T09:00:00`,
      sportType: (["Ride", "Run", "Hike"] as const)[i % 3],
      hasGpx: i % 4 !== 0,
      name: i === 7 ? "Côte de la Redoute 🚴 \"quoted\"" : `Activity ${i}`,
      gearId: i === 5 ? gear : null
    }))
  }
  yield* repo.addImage(ids[3]!, "activityImage-a", "a.png")
  yield* repo.addImage(ids[3]!, "activityImage-b", "b.jpg")
  const imports = yield* FileImportRepo
  for (let i = 0; i < 12; i++) {
    yield* imports.insert({
      id: `fileImport-${i}`, filename: `ride-${i % 5}.${i % 2 === 0 ? "fit" : "gpx"}`, source: i % 2 === 0 ? "fitFile" : "gpxFile",
      status: (["success", "failed", "skipped"] as const)[i % 3], errorMessage: i % 3 === 1 ? "The file is truncated: copy it again." : null,
      activityId: i % 3 === 0 ? ids[i]! : null, importedOn: 1_700_000_000_000 + i * 1000, contentHash: `hash-${i}`,
      sourceSize: 1, sourceMtime: 1, originalFile: null
    })
  }
  return ids
})

describe("direct routes", () => {
  layer(TestDaemon.layer().pipe(Layer.provide(UnlimitedWrongKeys)), { excludeTestServices: true })("over the daemon", (it) => {
    it.scoped("answer each hot read with the app's status, headers and bytes, a refused key and the read's own refusals included, and leave to the app the parameters its schema refuses", () =>
      Effect.gen(function*() {
        const ids = yield* seedHistory
        const daemon = yield* TestDaemon
        const appOnly = yield* appAlone
        // the router is the app's: a trailing slash and the case of the path do not matter to either;
        // what each answers with the key, itself or left to the app (parameters its schema refuses)
        const directly: ReadonlyArray<readonly [string, number]> = [
          ["/api/v1/status", 200],
          ["/api/v1/status/", 200],
          ["/API/v1/Status", 200],
          ["/api/v1/activities/", 200],
          ["/api/v1/activities", 200],
          ["/api/v1/activities?pagination[size]=5", 200],
          ["/api/v1/activities?pagination[size]=5&pagination[page]=3", 200],
          ["/api/v1/activities?pagination[page]=99", 200],
          ["/api/v1/activities?filters[sportType]=Ride", 200],
          ["/api/v1/activities?filters[sportType]=Ride,Run&filters[from]=2023-01-10&filters[to]=2023-01-20", 200],
          ["/api/v1/activities?filters[hasGpx]=false&pagination[size]=100", 200],
          ["/api/v1/activities?filters%5BsportType%5D=Run&pagination%5Bsize%5D=2", 200],
          [`/api/v1/activities/${ids[3]}`, 200],
          [`/api/v1/activities/${ids[5]}`, 200],
          [`/api/v1/activities/${ids[7]}`, 200],
          ["/api/v1/file-imports", 200],
          ["/api/v1/file-imports?pagination[size]=5&pagination[page]=2", 200],
          ["/api/v1/file-imports?filters[status]=failed,skipped", 200],
          ["/api/v1/file-imports?filters[status]=queued", 200],
          ["/api/v1/file-imports?filters[source]=gpxFile&filters[filename]=ride-1.gpx", 200],
          // the read's own refusals: answered where they are found, the read never run again by the app
          ["/api/v1/activities/activity-unknown", 404],
          // an id longer than the router takes (100 characters): no route, the app says so
          [`/api/v1/activities/activity-${"a".repeat(120)}`, LEFT_TO_THE_APP],
          ["/api/v1/activities?filters[from]=2023-02-01&filters[to]=2023-01-01", 400],
          // parameters the schema refuses: nothing ran, the app names the parameter
          ["/api/v1/activities?pagination[size]=101", LEFT_TO_THE_APP],
          ["/api/v1/activities?filters[sportType]=Ride&filters[sportType]=Run", LEFT_TO_THE_APP],
          ["/api/v1/activities?filters[sportType]=Swimming", LEFT_TO_THE_APP],
          ["/api/v1/file-imports?filters[status]=done", LEFT_TO_THE_APP],
          ["/api/v1/file-imports?pagination[page]=0", LEFT_TO_THE_APP]
        ]
        for (const [url] of directly) {
          for (const options of [{}, { key: null }, { key: "wmk_wrong" }]) {
            const direct = yield* send("GET", url, options)
            const app = yield* send("GET", url, options).pipe(Effect.provide(appOnly))
            expect({ url, status: direct.status, headers: headersOf(direct) }).toEqual({ url, status: app.status, headers: headersOf(app) })
            expect(direct.text).toBe(app.text)
          }
        }

        // and the direct routes did answer those themselves, a missing or wrong key too
        const base = yield* serverOf(yield* DirectRoutes)
        const auth = { headers: { authorization: `Bearer ${daemon.apiKey}` } }
        for (const [url, status] of directly) expect({ url, status: (yield* statusAt(base, url, auth)).status }).toEqual({ url, status })
        // without the key, every request of a route of theirs is answered 401 there
        const table = yield* RouteTable
        for (const [url] of directly) {
          const theirs = table.find("GET", url) !== undefined
          expect({ url, status: (yield* statusAt(base, url)).status }).toEqual({ url, status: theirs ? 401 : LEFT_TO_THE_APP })
        }
      }).pipe(Effect.provide(DirectRoutesLive)))

    it.scoped("answer a missing, wrong or malformed key with 401; leave to the app another method, a request with a body, and paths they do not serve", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const base = yield* serverOf(yield* DirectRoutes)
        const auth = `Bearer ${daemon.apiKey}`
        expect((yield* statusAt(base, "/api/v1/status", { headers: { authorization: auth } })).status).toBe(200)
        expect((yield* statusAt(base, "/api/v1/status")).status).toBe(401)
        expect((yield* statusAt(base, "/api/v1/status", { headers: { authorization: "Bearer wmk_" + "0".repeat(64) } })).status).toBe(401)
        expect((yield* statusAt(base, "/api/v1/status", { headers: { authorization: `Basic ${daemon.apiKey}` } })).status).toBe(401)
        expect((yield* statusAt(base, "/api/v1/activities", { method: "DELETE", headers: { authorization: auth } })).status).toBe(LEFT_TO_THE_APP)
        expect((yield* statusAt(base, "/api/v1/activities", { method: "HEAD", headers: { authorization: auth } })).status).toBe(LEFT_TO_THE_APP)
        expect((yield* statusAt(base, "/api/v1/activities", { method: "POST", body: "{}", headers: { authorization: auth } })).status).toBe(LEFT_TO_THE_APP)
        for (const path of ["/api/v1/gear", "/api/v1/activities/x/gpx", "/healthz", "/status", "/api/openapi.yaml"]) {
          expect({ path, status: (yield* statusAt(base, path, { headers: { authorization: auth } })).status }).toEqual({ path, status: LEFT_TO_THE_APP })
        }
      }).pipe(Effect.provide(DirectRoutesLive)))

    it.scoped("trace and log each answer as the app does: a server span with the route, the status and the redacted URL, under the caller's trace, and the debug line", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const config = yield* AppConfig
        const id = yield* seedActivity({ name: "Traced" })
        const native = yield* Effect.tracer
        const spans: Array<Tracer.Span> = []
        const recording = Tracer.make({
          span: (...args) => {
            const span = native.span(...args)
            spans.push(span)
            return span
          },
          context: (f) => f()
        })
        const lines: Array<Record<string, unknown>> = []
        const logger = Logger.make(({ annotations }) => void lines.push(Object.fromEntries(HashMap.toEntries(annotations))))
        const routes = yield* Effect.provide(
          DirectRoutes,
          DirectRoutesLive.pipe(Layer.provide(Layer.succeed(AppConfig, AppConfig.make({ ...config, logLevel: "debug" }))))
        ).pipe(Effect.withTracer(recording), Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.Debug))
        const base = yield* serverOf(routes)
        const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
        const headers = { authorization: `Bearer ${daemon.apiKey}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` }
        expect((yield* statusAt(base, `/api/v1/activities/${id}`, { headers })).status).toBe(200)
        expect((yield* statusAt(base, `/api/v1/activities?filters[sportType]=Ride&api_key=${daemon.apiKey}`, { headers })).status).toBe(200)
        expect((yield* statusAt(base, "/api/v1/activities/activity-unknown", { headers })).status).toBe(404)
        expect(spans.map((s) => ({ name: s.name, kind: s.kind, traceId: s.traceId, ended: s.status._tag, attributes: Object.fromEntries(s.attributes) }))).toEqual([
          {
            name: "http.server GET", kind: "server", traceId, ended: "Ended",
            attributes: { "http.request.method": "GET", "url.path": `/api/v1/activities/${id}`, "http.route": "/api/v1/activities/:activityId", "http.response.status_code": 200 }
          },
          {
            name: "http.server GET", kind: "server", traceId, ended: "Ended",
            attributes: {
              "http.request.method": "GET", "url.path": "/api/v1/activities", "url.query": "filters[sportType]=Ride&api_key=[redacted]",
              "http.route": "/api/v1/activities", "http.response.status_code": 200
            }
          },
          {
            name: "http.server GET", kind: "server", traceId, ended: "Ended",
            attributes: { "http.request.method": "GET", "url.path": "/api/v1/activities/activity-unknown", "http.route": "/api/v1/activities/:activityId", "http.response.status_code": 404 }
          }
        ])
        expect(lines).toEqual([
          { "http.method": "GET", "http.url": `/api/v1/activities/${id}`, "http.status": 200 },
          { "http.method": "GET", "http.url": "/api/v1/activities?filters[sportType]=Ride&api_key=[redacted]", "http.status": 200 },
          { "http.method": "GET", "http.url": "/api/v1/activities/activity-unknown", "http.status": 404 }
        ])
      }).pipe(Effect.provide(TableLive)))

    it.scoped("answer a database error as the app does, the read run once: 500 with a reference that the errors log repeats", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        let reads = 0
        const failing = Layer.effect(HotReads, Effect.map(HotReads, (real) =>
          HotReads.make({
            ...real,
            read: (name, url, input) => {
              if (name !== "activities.get") return real.read(name, url, input)
              reads++
              throw new Error("disk I/O error")
            }
          }))).pipe(Layer.provide(HotReads.Default))
        const lines: Array<Record<string, unknown>> = []
        const logger = Logger.make(({ annotations, message }) => void lines.push({ message, ...Object.fromEntries(HashMap.toEntries(annotations)) }))
        const routes = yield* Effect.provide(
          DirectRoutes,
          DirectRoutes.Default.pipe(Layer.provide([failing, TableLive, ServedAnswers.Default, RequestLog.Default, ApiAuthorization.Default.pipe(Layer.provide([DashboardSessions.Default, WrongKeys.Default]))]))
        ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
        const base = yield* serverOf(routes)
        const answer = yield* statusAt(base, "/api/v1/activities/activity-1", { headers: { authorization: `Bearer ${daemon.apiKey}` } })
        expect(answer.status).toBe(500)
        const body = JSON.parse(answer.text) as { error: string; message: string }
        expect(body.error).toBe("internal_error")
        const reference = /Reference: ([0-9a-f]{8})\./.exec(body.message)?.[1]
        expect(reference).toBeDefined()
        expect(reads).toBe(1)
        expect(lines.filter((l) => l["channel"] === "errors")).toEqual([
          expect.objectContaining({ reference, method: "GET", path: "/api/v1/activities/activity-1", stack: expect.stringContaining("disk I/O error") })
        ])
      }).pipe(Effect.provide(TableLive)))

    it.scoped("answer from the one store of kept answers the app's handler fills, until the next commit", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Kept", startTime: Date.parse("2010-01-01T08:00:00Z"), startDateLocal: "2010-01-01T09:00:00" })
        let reads = 0
        const counted = Layer.effect(ActivityReads, Effect.map(ActivityReads, (real) =>
          ActivityReads.make({
            ...real,
            findById: (activityId) => {
              reads++
              return real.findById(activityId)
            }
          })))
        const hotReads = HotReads.Default.pipe(Layer.provide(counted))
        const { hot, routes } = yield* Effect.all({ hot: HotReads, routes: DirectRoutes }).pipe(
          Effect.provide(DirectRoutes.Default.pipe(
            Layer.provideMerge(hotReads),
            Layer.provide([TableLive, ServedAnswers.Default, RequestLog.Default, ApiAuthorization.Default.pipe(Layer.provide([DashboardSessions.Default, WrongKeys.Default]))])
          ))
        )
        const url = `/api/v1/activities/${id}`
        const authorization = { headers: { authorization: `Bearer ${(yield* TestDaemon).apiKey}` } }
        // the app's handler reads, and keeps the answer under the request's URL
        const fromApp = yield* hot.handler("activities.get")({ path: { activityId: id }, request: { url } })
        expect(reads).toBe(1)
        const base = yield* serverOf(routes)
        const direct = yield* statusAt(base, url, authorization)
        expect({ status: direct.status, name: JSON.parse(direct.text).name }).toEqual({ status: 200, name: "Kept" })
        expect(fromApp.body).toMatchObject({ _tag: "Uint8Array" })
        expect(new TextDecoder().decode((fromApp.body as { body: Uint8Array }).body)).toBe(direct.text)
        expect(reads).toBe(1)
        // a commit ends what was kept
        yield* (yield* ActivityRepo).update(id, { name: "Committed" }, { byAthlete: true })
        expect(JSON.parse((yield* statusAt(base, url, authorization)).text).name).toBe("Committed")
        expect(reads).toBe(2)
      }).pipe(Effect.provide(TableLive)))

    it.scoped("answer the probes with the app's status, headers and bytes", () =>
      Effect.gen(function*() {
        const appOnly = yield* appAlone
        for (const options of [{}, { key: null }]) {
          const direct = yield* send("GET", "/status", options)
          const app = yield* send("GET", "/status", options).pipe(Effect.provide(appOnly))
          expect({ status: direct.status, headers: headersOf(direct), text: direct.text }).toEqual({ status: app.status, headers: headersOf(app), text: app.text })
          const directHealth = yield* send("GET", "/healthz", options)
          const appHealth = yield* send("GET", "/healthz", options).pipe(Effect.provide(appOnly))
          // two daemons: their fibers started at other instants, the rest is alike
          expect({ status: directHealth.status, headers: headersOf(directHealth) }).toEqual({ status: appHealth.status, headers: { ...headersOf(appHealth), "content-length": directHealth.headers["content-length"] } })
          const { fibers: directFibers, ...directBody } = JSON.parse(directHealth.text)
          const { fibers: appFibers, ...appBody } = JSON.parse(appHealth.text)
          expect(directBody).toEqual(appBody)
          expect(Object.keys(directFibers).sort()).toEqual(Object.keys(appFibers).sort())
        }
      }))

    it.scoped("answer a served route whose feature gave its answer, with that answer (a defect: 500 with a reference), from the path's parameters and the headers when it asks for them; leave to the app another method and a served route without one", () =>
      Effect.gen(function*() {
        class ProbeRouter extends HttpRouter.Tag("test/ProbeRouter")<ProbeRouter>() {}
        const servedLive = ProbeRouter.use((router) =>
          Effect.gen(function*() {
            const served = yield* ServedAnswers
            yield* served.get(router, "/probe", Effect.succeed(HttpServerResponse.unsafeJson({ probed: true }, { headers: { "cache-control": "no-store" } })))
            yield* served.get(router, "/broken", Effect.die(new Error("the probe broke")))
            // a response at hand for "now", an effect otherwise; a throw is a defect
            yield* served.getWith(router, "/echo/:name", ({ headers, params }) => {
              if (params["name"] === "throw") throw new Error("the echo broke")
              const text = `${params["name"]} ${headers["x-echo"]}`
              return params["name"] === "now" ? HttpServerResponse.text(text) : Effect.map(Effect.yieldNow(), () => HttpServerResponse.text(text, { status: 202 }))
            })
            yield* router.get("/left", Effect.succeed(HttpServerResponse.empty()))
          }))
        const table = RouteTable.layer([{ method: "GET", path: "/probe" }, { method: "GET", path: "/broken" }, { method: "GET", path: "/echo/:name" }, { method: "GET", path: "/left" }])
        const routes = yield* Effect.provide(
          DirectRoutes,
          Layer.merge(DirectRoutes.Default, servedLive).pipe(
            Layer.provide([HotReads.Default, table, ServedAnswers.Default, RequestLog.Default, ApiAuthorization.Default.pipe(Layer.provide([DashboardSessions.Default, WrongKeys.Default]))])
          )
        ).pipe(Logger.withMinimumLogLevel(LogLevel.None))
        const base = yield* serverOf(routes).pipe(Effect.provide(table))
        const probed = yield* Effect.promise(() => fetch(base + "/probe").then(async (r) => ({ status: r.status, cache: r.headers.get("cache-control"), text: await r.text() })))
        expect(probed).toEqual({ status: 200, cache: "no-store", text: '{"probed":true}' })
        const broken = yield* statusAt(base, "/broken")
        expect(broken.status).toBe(500)
        expect(JSON.parse(broken.text).error).toBe("internal_error")
        const echo = { headers: { "x-echo": "back" } }
        expect(yield* statusAt(base, "/echo/now", echo)).toEqual({ status: 200, text: "now back" })
        expect(yield* statusAt(base, "/echo/later", echo)).toEqual({ status: 202, text: "later back" })
        const thrown = yield* statusAt(base, "/echo/throw")
        expect(thrown.status).toBe(500)
        expect(JSON.parse(thrown.text).error).toBe("internal_error")
        expect((yield* statusAt(base, "/left")).status).toBe(LEFT_TO_THE_APP)
        expect((yield* statusAt(base, "/probe", { method: "HEAD" })).status).toBe(LEFT_TO_THE_APP)
        expect((yield* statusAt(base, "/probe", { method: "POST", body: "{}" })).status).toBe(LEFT_TO_THE_APP)
      }))

    it.effect("answer what was committed last: an edit, a new activity, a change by another process, a deletion", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const id = yield* seedActivity({ name: "Before", startTime: Date.parse("2030-01-01T08:00:00Z"), startDateLocal: "2030-01-01T09:00:00" })
        const list = "/api/v1/activities?filters[from]=2029-01-01"
        expect((yield* send("GET", `/api/v1/activities/${id}`)).json.name).toBe("Before")
        expect((yield* send("GET", list)).json.pagination.total).toBe(1)

        expect((yield* send("PATCH", `/api/v1/activities/${id}`, { json: { name: "After" } })).status).toBe(200)
        expect((yield* send("GET", `/api/v1/activities/${id}`)).json.name).toBe("After")
        expect((yield* send("GET", list)).json.activities[0].name).toBe("After")

        const second = yield* seedActivity({ startTime: Date.parse("2030-02-01T08:00:00Z"), startDateLocal: "2030-02-01T09:00:00" })
        const grown = (yield* send("GET", list)).json
        expect({ total: grown.pagination.total, first: grown.activities[0].id }).toEqual({ total: 2, first: second })

        // a command of the CLI writes through its own connection
        const other = new Database(daemon.databaseFile)
        other.prepare("UPDATE activities SET name = ? WHERE id = ?").run("Renamed elsewhere", id)
        other.close()
        expect((yield* send("GET", `/api/v1/activities/${id}`)).json.name).toBe("Renamed elsewhere")

        expect((yield* send("DELETE", `/api/v1/activities/${id}`)).status).toBe(204)
        expect((yield* send("GET", `/api/v1/activities/${id}`)).status).toBe(404)
        expect((yield* send("GET", list)).json.pagination.total).toBe(1)
      }))

    it.effect("answer every one of many concurrent requests with what was committed before they were sent, here or by another process", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const id = yield* seedActivity({ name: "Round 0", startTime: Date.parse("2031-01-01T08:00:00Z"), startDateLocal: "2031-01-01T09:00:00" })
        const names = Effect.forEach(Array.from({ length: 16 }), () => send("GET", `/api/v1/activities/${id}`), { concurrency: "unbounded" }).pipe(
          Effect.map((answers) => answers.map((a) => a.json.name as string))
        )
        for (let round = 1; round <= 10; round++) {
          // a change by another process (the CLI) between two bursts that keep the answer
          const other = new Database(daemon.databaseFile)
          other.prepare("UPDATE activities SET name = ? WHERE id = ?").run(`Elsewhere ${round}`, id)
          other.close()
          expect(yield* names).toEqual(Array(16).fill(`Elsewhere ${round}`))
          expect((yield* send("PATCH", `/api/v1/activities/${id}`, { json: { name: `Here ${round}` } })).status).toBe(200)
          expect(yield* names).toEqual(Array(16).fill(`Here ${round}`))
        }
      }))
  })
})
