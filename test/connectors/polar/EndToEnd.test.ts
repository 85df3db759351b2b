import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { startChildDaemon } from "../../support/ChildDaemon.ts"
import { freePort } from "../../support/freePort.ts"
import { fitActivity, scopedRoot, tcxActivity } from "../../support/ImportHarness.ts"
import { envFor, scopedFake, spawnEntry, waitFor } from "./harness.ts"

/**
 * The connector and the daemon as two real processes sharing a watch folder: the connector
 * (its entry, as `npm run polar` starts it) authorizes against the fake Polar through its
 * own HTTP routes, registers its webhook, and a signed EXERCISE delivery makes it download
 * the new exercises into the folder, where the daemon imports them as activities.
 */

const HOUR = 3_600_000

describe("Polar connector end to end", () => {
  it.scopedLive("the fake's exercises, delivered into the shared watch folder, become the daemon's activities", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const root = yield* scopedRoot()
      const daemon = yield* startChildDaemon({ env: { ...root.env, LOG_LEVEL: "warning" }, apiKey: root.apiKey })

      const port = yield* freePort
      const base = `http://127.0.0.1:${port}`
      const env = envFor(fake, {
        root: root.root,
        watchDir: root.watchDir,
        stateDir: path.join(root.root, "polar-state"),
        tokensDir: path.join(root.root, "polar-tokens")
      }, {
        HTTP_ADDR: `127.0.0.1:${port}`,
        PUBLIC_URL: base,
        WEBHOOK_URL: `${base}/webhook`,
        POLL_INTERVAL: "3600"
      })
      const connector = yield* spawnEntry([], env)
      const status = () =>
        Effect.promise(() =>
          fetch(`${base}/status`)
            .then(async (r): Promise<any> => (r.status === 200 ? await r.json() : undefined))
            .catch(() => undefined)
        )
      const first = yield* waitFor("the connector's /status", status(), "60 seconds").pipe(
        Effect.tapDefect(() => Effect.sync(() => console.log(connector.output())))
      )
      expect(first).toMatchObject({ authorization: "required", authorizeUrl: `${base}/authorize` })
      // the webhook is registered at start, once Polar's PING was answered
      yield* waitFor("the webhook registration", Effect.map(status(), (s) => (s?.webhook.active === true ? true : undefined)))

      const answer = yield* Effect.promise(() => fake.browserAuthorize(`${base}/authorize`))
      expect(answer.status).toBe(200)
      expect(answer.text).toContain(`Authorized as Polar user ${fake.userId}`)

      // new exercises at Polar, announced by a signed delivery
      const track = (hours: number) => ({ start: new Date(Date.now() - hours * HOUR), seconds: 600 })
      fake.addExercise({ id: "E2E1", startTime: track(5).start.toISOString(), files: { fit: fitActivity(track(5)) } })
      fake.addExercise({ id: "E2E2", startTime: track(3).start.toISOString(), files: { tcx: tcxActivity(track(3)) } })
      fake.addExercise({ id: "E2E3", startTime: track(2).start.toISOString(), files: {} })
      expect(yield* Effect.promise(() => fake.deliverEvent("E2E2"))).toBe(200)

      const imports = yield* waitFor(
        "the daemon's imports of both files",
        Effect.gen(function*() {
          const list = yield* daemon.get("/api/v1/file-imports?pagination[size]=100")
          const rows: Array<{ filename: string; status: string; activityId: string | null }> = list.json?.fileImports ?? []
          return rows.filter((r) => r.activityId !== null).length >= 2 ? rows : undefined
        }),
        "60 seconds"
      ).pipe(Effect.tapDefect(() => Effect.sync(() => console.log(connector.output(), daemon.output()))))
      expect(imports.map((r) => r.filename).sort()).toEqual(["E2E1.fit", "E2E2.tcx"])

      const activities = yield* daemon.get("/api/v1/activities?pagination[size]=100")
      expect(activities.json.activities).toHaveLength(2)

      const after = yield* status()
      expect(after).toMatchObject({ authorization: "ok", healthy: true, webhook: { configured: true, active: true } })
      expect(after.exercises).toMatchObject({ delivered: 2, "no-file": 1 })
      expect(after.webhook.lastEventAt).not.toBeNull()
    }), { timeout: 180_000 })
})
