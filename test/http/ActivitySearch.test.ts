import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

/** filters[search] of the activity list, and the names of filters and pagination parameters checked. */

layer(TestDaemon.layer(), { excludeTestServices: true })("GET /api/v1/activities?filters[search]=…", (it) => {
  it.effect("finds every word in the name or description, whatever the case and accents", () =>
    Effect.gen(function*() {
      const galibier = yield* seedActivity({ name: "Col du Galibier", description: "Montée sous la pluie" })
      const cafe = yield* seedActivity({ name: "Café ride", description: "" })
      yield* seedActivity({ name: "Morning Ride", description: "flat" })
      const ids = (query: string, headers: Record<string, string> = {}) =>
        Effect.map(send("GET", `/api/v1/activities?${query}`, { headers }), (a) => a.json.activities.map((x: any) => x.id).sort())
      expect(yield* ids("filters[search]=galibier")).toEqual([galibier])
      expect(yield* ids("filters[search]=MONTEE%20pluie")).toEqual([galibier])
      expect(yield* ids("filters[search]=c%C3%B4l%20GALIBIER")).toEqual([galibier])
      expect(yield* ids("filters[search]=cafe")).toEqual([cafe])
      expect(yield* ids("filters[search]=galibier%20cafe")).toEqual([])
      expect((yield* ids("filters[search]=%20%20"))).toHaveLength(3)
      const counted = yield* send("GET", "/api/v1/activities?filters[search]=ride&pagination[size]=1")
      expect(counted.json.pagination).toEqual({ page: 1, size: 1, total: 2, totalPages: 2 })
    }))

  it.effect("an unknown filters[…] or pagination[…] name is a 400 naming it; other names are ignored", () =>
    Effect.gen(function*() {
      for (const name of ["filters[sport]", "pagination[limit]", "filters[]"]) {
        const answer = yield* send("GET", `/api/v1/activities?${encodeURIComponent(name)}=1`)
        expectError(answer, 400, "bad_request")
        expect(answer.json.message).toContain(`"${name}"`)
      }
      expectError(yield* send("GET", "/api/v1/file-imports?filters[state]=failed"), 400, "bad_request")
      expect((yield* send("GET", "/api/v1/activities?_=12345")).status).toBe(200)
    }))
})
