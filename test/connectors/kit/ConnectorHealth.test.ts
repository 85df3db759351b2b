import { describe, expect, it } from "@effect/vitest"
import { connectorHealth, healthStatusCode, type HealthInput } from "../../../src/connectors/kit/ConnectorHealth.ts"

const HOUR = 3_600_000
const START = Date.parse("2026-03-01T00:00:00Z")

const input = (overrides: Partial<HealthInput>): HealthInput => ({
  now: START,
  startedAt: START,
  authorization: "ok",
  authorizationProblem: "nobody has authorized the connector yet",
  completedSyncs: [],
  interval: () => HOUR,
  ...overrides
})

describe("connectorHealth", () => {
  it("is unhealthy (503) with the authorization problem as its reason until authorized, whatever the syncs", () => {
    const health = connectorHealth(input({ authorization: "required", completedSyncs: [START] }))
    expect(health).toEqual({
      healthy: false,
      reason: "nobody has authorized the connector yet",
      checks: { authorization: "required", lastSuccessfulSync: "2026-03-01T00:00:00.000Z", syncDueBy: "2026-03-01T03:00:00.000Z", syncRecent: true }
    })
    expect(healthStatusCode(health)).toBe(503)
  })

  it("is healthy (200) while the last completed sync is at most three intervals old, counted from the start while none is newer", () => {
    const synced = connectorHealth(input({ now: START + 5 * HOUR, completedSyncs: [START + 2 * HOUR, START + HOUR] }))
    expect(synced).toMatchObject({ healthy: true, reason: null, checks: { lastSuccessfulSync: "2026-03-01T02:00:00.000Z", syncDueBy: "2026-03-01T05:00:00.000Z" } })
    expect(healthStatusCode(synced)).toBe(200)
    // a sync from before the start does not make a fresh process unhealthy
    expect(connectorHealth(input({ now: START + 2 * HOUR, completedSyncs: [START - 10 * HOUR] })).healthy).toBe(true)
  })

  it("is unhealthy (503) when no sync completed for three intervals, saying since when and by when one was due", () => {
    const health = connectorHealth(input({ now: START + 5 * HOUR + 1, completedSyncs: [START + 2 * HOUR], interval: (reference) => (reference === START + 2 * HOUR ? HOUR : 0) }))
    expect(health.healthy).toBe(false)
    expect(health.reason).toBe("no sync has completed since 2026-03-01T02:00:00.000Z (one was due by 2026-03-01T05:00:00.000Z)")
    expect(health.checks.syncRecent).toBe(false)
    expect(healthStatusCode(health)).toBe(503)
  })
})
