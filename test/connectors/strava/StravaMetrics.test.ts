import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { startChildDaemon } from "../../support/ChildDaemon.ts"
import { scopedRoot } from "../../support/ImportHarness.ts"
import { startFakeStrava } from "../../fakes/FakeStrava.ts"

/**
 * The daemon in externalApi mode, as a process of its own, against the fake Strava: its
 * webhook drain and its scheduled import are the Strava connector's cycles in its /metrics.
 */

const metricsOf = (baseUrl: string, apiKey: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${apiKey}` } })
    return response.status === 200 ? await response.text() : ""
  })

const valueOf = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

describe("Strava connector metrics", () => {
  it.scopedLive("the webhook drain's passes and the scheduled import's runs count as cycles of connector=\"strava\", a refused run as an error", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(Effect.promise(() => startFakeStrava()), (f) => Effect.promise(() => f.close()))
      const root = yield* scopedRoot({
        IMPORT_MODE: "externalApi",
        STRAVA_CLIENT_ID: fake.state.clientId,
        STRAVA_CLIENT_SECRET: fake.state.clientSecret,
        // Strava refuses it: the scheduled run ends blocked
        STRAVA_REFRESH_TOKEN: "a-refresh-token-strava-does-not-know",
        STRAVA_BASE_URL: fake.url,
        WEBHOOKS_ENABLED: "true",
        WEBHOOKS_VERIFY_TOKEN: "verify-token-0123",
        WEBHOOKS_CHECK_INTERVAL_MINUTES: "60",
        // every 5 s rather than at the next minute (a 5-field cron has no seconds): the daemon
        // begins its schedule only once the drain's first pass is over, however long it starts
        EXTERNAL_IMPORT_CRON: "*/5 * * * * *"
      })
      const daemon = yield* startChildDaemon({ env: root.env, apiKey: root.apiKey })
      const completed = 'waymark_connector_cycles_total{connector="strava",result="completed"}'
      const failed = 'waymark_connector_cycles_total{connector="strava",result="failed"}'
      const errors = 'waymark_connector_errors_total{connector="strava"}'

      // the drain's first pass, at start: nothing queued, a completed cycle
      let text = ""
      for (const deadline = Date.now() + 120_000; valueOf(text, completed) === 0 && Date.now() < deadline;) {
        yield* Effect.sleep("100 millis")
        text = yield* metricsOf(daemon.baseUrl, root.apiKey)
      }
      expect(valueOf(text, completed), text).toBe(1)
      // no error of its own: those counted are the scheduled run's, if it came before this read
      expect(valueOf(text, errors)).toBe(valueOf(text, failed))

      // the scheduled runs: the refresh token is refused, a failed cycle each
      for (const deadline = Date.now() + 150_000; valueOf(text, failed) === 0 && Date.now() < deadline;) {
        yield* Effect.sleep("500 millis")
        text = yield* metricsOf(daemon.baseUrl, root.apiKey)
      }
      // one error per refused run (a second run may have come before this read)
      expect(valueOf(text, failed), daemon.output()).toBeGreaterThanOrEqual(1)
      expect(valueOf(text, errors)).toBe(valueOf(text, failed))
      expect(valueOf(text, completed)).toBe(1)
      expect(fake.requests.some((r) => r.path === "/oauth/token")).toBe(true)
    }), { timeout: 300_000 })
})
