import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeHttpApp } from "../../src/http/ApiLive.ts"
import { MAX_JSON_BODY, MULTIPART_ROOM } from "../../src/http/BodyLimits.ts"
import { makeRouteTable, RouteTable } from "../../src/http/RouteTable.ts"
import { makeTestListener } from "../support/testListener.ts"
import { ServicesLive } from "../../src/runtime/Services.ts"

/**
 * The route table is the one list of what the daemon answers: the HttpApi's endpoints and the
 * routes the composition serves beside it. Body limits, allowed methods and the metrics'
 * labels all read it, and the app may serve nothing it does not hold.
 */

const POST_MAX_SIZE = 48 * 1024 * 1024
const ARCHIVE_MAX_SIZE = 4096 * 1024 * 1024
const table = makeRouteTable(
  [
    { method: "GET", path: "/external/webhook" },
    { method: "POST", path: "/external/webhook", maxBodyBytes: 16 * 1024 },
    { method: "POST", path: "/sign-in" }
  ],
  { postMaxSize: POST_MAX_SIZE, archiveMaxSize: ARCHIVE_MAX_SIZE }
)

describe("route table", () => {
  it("holds every endpoint of the HttpApi, with its declared path, and the served routes", () => {
    const keys = table.routes.map((r) => `${r.method} ${r.path}`)
    expect(keys).toContain("GET /api/v1/activities/:activityId")
    expect(keys).toContain("POST /api/v1/activity/upload")
    expect(keys).toContain("DELETE /api/v1/athlete/thresholds/:on")
    expect(keys).toContain("POST /external/webhook")
    expect(new Set(keys).size).toBe(keys.length)
  })

  it("limits a body by its route: an upload endpoint's annotation (POST_MAX_SIZE, or an archive's ARCHIVE_MAX_SIZE, streamed), a served route's own limit, else 64 KB", () => {
    expect(table.limitOf("POST", "/api/v1/activity/upload")).toEqual({
      maxBytes: ARCHIVE_MAX_SIZE + MULTIPART_ROOM,
      streamed: true,
      watchFolder: true,
      archiveMaxSize: ARCHIVE_MAX_SIZE
    })
    expect(table.limitOf("post", "/api/v1/activities/activity-1/images/")).toEqual({ maxBytes: POST_MAX_SIZE, streamed: true, watchFolder: false })
    expect(table.limitOf("POST", "/external/webhook?x=1")).toEqual({ maxBytes: 16 * 1024, streamed: false })
    expect(table.limitOf("POST", "/api/v1/athlete/weights")).toEqual({ maxBytes: MAX_JSON_BODY, streamed: false })
    expect(table.limitOf("POST", "/nowhere")).toEqual({ maxBytes: MAX_JSON_BODY, streamed: false })
  })

  it("finds a route as the app's router does: any case, a trailing slash, HEAD as GET; never one for a path that does not decode", () => {
    expect(table.find("GET", "/API/V1/Activities/?pagination[size]=5")?.handler.path).toBe("/api/v1/activities")
    expect(table.find("HEAD", "/api/v1/status")?.handler.path).toBe("/api/v1/status")
    expect(table.find("GET", "/api/v1/activities/%E0%A4%A")).toBeUndefined()
    expect(table.find("PUT", "/api/v1/status")).toBeUndefined()
  })

  it("names the methods a path allows", () => {
    expect([...table.allowedMethods("/api/v1/activities/activity-1")].sort()).toEqual(["DELETE", "GET", "PATCH"])
    expect(table.allowedMethods("/api/v1/gear")).toEqual(["GET", "POST"])
    expect(table.allowedMethods("/api/v1/nothing")).toEqual([])
  })

  it("refuses a route served but not declared, and a route declared twice", () => {
    expect(() => table.checkServed([{ method: "GET", path: "/api/v1/status" } as never, { method: "POST", path: "/sign-in" } as never])).not.toThrow()
    expect(() => table.checkServed([{ method: "GET", path: "/debug" } as never])).toThrow("GET /debug is served but not declared")
    expect(() => makeRouteTable([{ method: "GET", path: "/api/v1/status" }], { postMaxSize: POST_MAX_SIZE, archiveMaxSize: ARCHIVE_MAX_SIZE })).toThrow("GET /api/v1/status is declared twice")
  })

  it.scoped("a route the app's router serves but no feature declares stops the start", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-routes-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      const undeclared = {
        routes: [],
        live: HttpApiBuilder.Router.use((router) => router.get("/debug", Effect.succeed(HttpServerResponse.text("secret"))))
      }
      const app = makeHttpApp([undeclared]).pipe(
        Layer.provide(makeTestListener()),
        Layer.provide(RouteTable.layer([])),
        Layer.provide(ServicesLive),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["STORAGE_DIR", path.join(dir, "storage")], ["WATCH_DIR", path.join(dir, "watch")]]))))
      )
      const exit = yield* Effect.exit(Layer.build(app))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).toContain("GET /debug is served but not declared")
    }))
})
