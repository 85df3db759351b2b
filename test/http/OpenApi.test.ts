import { expect, layer } from "@effect/vitest"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Effect } from "effect"
import * as Yaml from "yaml"
import { send, TestDaemon } from "../support/TestDaemon.ts"
import { ENDPOINTS } from "./endpoints.ts"

layer(TestDaemon.layer(), { excludeTestServices: true })("GET /api/openapi.yaml", (it) => {
  const fetchDocument = Effect.gen(function*() {
    const answer = yield* send("GET", "/api/openapi.yaml", { key: null })
    expect(answer.status).toBe(200)
    expect(answer.headers["content-type"]).toMatch(/yaml/)
    return answer.text
  })

  it.effect("is public, OpenAPI 3.1, and passes the recommended Redocly ruleset with zero errors", () =>
    Effect.gen(function*() {
      const source = yield* fetchDocument
      const problems = yield* Effect.promise(async () =>
        lintFromString({ source, absoluteRef: "openapi.yaml", config: await createConfig({ extends: ["recommended"] }) }))
      const errors = problems.filter((p) => p.severity === "error")
      expect(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([])
      // warnings are allowed; list them so that they are looked at
      const warnings = problems.filter((p) => p.severity === "warn").map((p) => `${p.ruleId} ${p.location[0]?.pointer}`)
      if (warnings.length > 0) console.info(`openapi lint warnings (${warnings.length}):\n${warnings.join("\n")}`)
      expect(Yaml.parse(source).openapi).toMatch(/^3\.1\./)
    }))

  it.effect("declares every endpoint with its documented status codes, bearer security and the error shape", () =>
    Effect.gen(function*() {
      const doc = Yaml.parse(yield* fetchDocument)
      const expected: Record<string, ReadonlyArray<string>> = {
        "get /api/v1/status": ["200", "401"],
        "post /api/v1/activity/upload": ["202", "400", "401", "409", "413", "415", "422", "500"],
        "get /api/v1/activities": ["200", "400", "401"],
        "get /api/v1/activities/{activityId}": ["200", "401", "404"],
        "patch /api/v1/activities/{activityId}": ["200", "400", "401", "404", "409"],
        "delete /api/v1/activities/{activityId}": ["204", "401", "404", "409"],
        "get /api/v1/activities/{activityId}/gpx": ["200", "401", "404"],
        "post /api/v1/activities/{activityId}/images": ["201", "400", "401", "404", "409", "413", "415", "422", "500"],
        "delete /api/v1/activities/{activityId}/images/{imageId}": ["204", "401", "404", "409"],
        "get /api/v1/activities/{activityId}/streams": ["200", "400", "401", "404"],
        "get /api/v1/activities/{activityId}/laps": ["200", "401", "404"],
        "get /api/v1/activities/{activityId}/splits": ["200", "401", "404"],
        "get /api/v1/activities/{activityId}/best-efforts": ["200", "401", "404"],
        "get /api/v1/activities/{activityId}/original": ["200", "401", "404"],
        "get /api/v1/file-imports": ["200", "400", "401"],
        "post /api/v1/file-imports/{fileImportId}/retry": ["202", "401", "404", "409"],
        "delete /api/v1/file-imports/{fileImportId}": ["204", "401", "404", "409"],
        "get /api/v1/gear": ["200", "401"],
        "post /api/v1/gear": ["201", "400", "401", "415"],
        "get /api/v1/gear/{gearId}": ["200", "401", "404"],
        "patch /api/v1/gear/{gearId}": ["200", "400", "401", "404", "409", "415"],
        "delete /api/v1/gear/{gearId}": ["204", "401", "404", "409"],
        "get /api/v1/stats/totals": ["200", "400", "401"],
        "get /api/v1/stats/records": ["200", "400", "401"],
        "get /api/v1/stats/eddington": ["200", "400", "401"],
        "get /api/v1/stats/heatmap": ["200", "400", "401"],
        "get /api/v1/athlete/weights": ["200", "401"],
        "post /api/v1/athlete/weights": ["200", "400", "401", "415"],
        "delete /api/v1/athlete/weights/{on}": ["204", "400", "401"],
        "get /api/v1/athlete/thresholds": ["200", "401"],
        "post /api/v1/athlete/thresholds": ["200", "400", "401", "415"],
        "delete /api/v1/athlete/thresholds/{on}": ["204", "400", "401"],
        "get /api/v1/activities/{activityId}/analysis": ["200", "401", "404"],
        "get /api/v1/stats/power-curve": ["200", "400", "401"],
        "get /api/v1/stats/training-load": ["200", "400", "401"],
        "get /api/v1/stats/calendar": ["200", "400", "401"],
        "get /api/v1/stats/streaks": ["200", "401"],
        "get /api/v1/stats/year-in-review": ["200", "400", "401"],
        "get /api/v1/milestones": ["200", "400", "401"],
        "get /api/v1/gear/{gearId}/components": ["200", "401", "404"],
        "post /api/v1/gear/{gearId}/components": ["201", "400", "401", "404", "415"],
        "get /api/v1/gear/{gearId}/components/{componentId}": ["200", "401", "404"],
        "patch /api/v1/gear/{gearId}/components/{componentId}": ["200", "400", "401", "404", "415"],
        "delete /api/v1/gear/{gearId}/components/{componentId}": ["204", "401", "404"],
        "post /api/v1/gear/{gearId}/components/{componentId}/service": ["201", "400", "401", "404", "415"]
      }
      // a service without a body is one done today
      expect(doc.paths["/api/v1/gear/{gearId}/components/{componentId}/service"].post.requestBody.required).toBe(false)
      expect(Object.keys(expected)).toHaveLength(ENDPOINTS.length)
      for (const [key, statuses] of Object.entries(expected)) {
        const [method, path] = key.split(" ") as [string, string]
        const op = doc.paths[path]?.[method]
        expect(op, key).toBeDefined()
        for (const status of statuses) expect(Object.keys(op.responses), `${key} ${status}`).toContain(status)
        const security = op.security ?? doc.security
        expect(security, key).toEqual([{ bearer: [] }])
      }
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" })
      expect(doc.components.schemas.Error.required.sort()).toEqual(["error", "message"])
      expect(doc.paths["/api/v1/activities/{activityId}/gpx"].get.responses["200"].content).toHaveProperty(["application/gpx+xml"])
      expect(doc.paths["/api/v1/activity/upload"].post.requestBody.content).toHaveProperty(["multipart/form-data"])
    }))
})
