/**
 * What a connector's `/healthz` answers, the same for every connector: 200 with `healthy: true`
 * while it can deliver, else 503 with `healthy: false` and `reason`, one sentence saying why:
 * nobody has authorized yet, the cloud refused the tokens, or no sync completed for three
 * intervals of its schedule (counted from the start while none has yet). `checks` holds the
 * findings, under the same names for every connector.
 */
export type AuthorizationCheck = "ok" | "required" | "revoked" | "consent-required"

export interface HealthChecks {
  readonly authorization: AuthorizationCheck
  /** End of the last completed sync, when one is known. */
  readonly lastSuccessfulSync: string | null
  /** The latest moment a completed sync may date from for the connector to be healthy. */
  readonly syncDueBy: string
  readonly syncRecent: boolean
}

export interface ConnectorHealth {
  readonly healthy: boolean
  readonly reason: string | null
  readonly checks: HealthChecks
}

/** Syncs that may be missed in a row before the connector is unhealthy. */
export const MISSED_SYNCS = 3

export interface HealthInput {
  readonly now: number
  /** When the process started (epoch ms). */
  readonly startedAt: number
  readonly authorization: AuthorizationCheck
  /** Why the connector is not authorized, in a sentence; used unless authorization is "ok". */
  readonly authorizationProblem: string
  /** Ends of completed syncs the connector knows of (epoch ms): the latest counts. */
  readonly completedSyncs: ReadonlyArray<number>
  /** The time between two syncs of the schedule, from `reference` on (ms). */
  readonly interval: (reference: number) => number
}

const iso = (ms: number) => new Date(ms).toISOString()

export const connectorHealth = (input: HealthInput): ConnectorHealth => {
  const known = input.completedSyncs.filter((t) => Number.isFinite(t))
  const last = known.length === 0 ? undefined : Math.max(...known)
  const reference = Math.max(input.startedAt, last ?? 0)
  const dueBy = reference + MISSED_SYNCS * input.interval(reference)
  const syncRecent = input.now <= dueBy
  const reason = input.authorization !== "ok"
    ? input.authorizationProblem
    : syncRecent
    ? null
    : `no sync has completed since ${iso(reference)} (one was due by ${iso(dueBy)})`
  return {
    healthy: reason === null,
    reason,
    checks: {
      authorization: input.authorization,
      lastSuccessfulSync: last === undefined ? null : iso(last),
      syncDueBy: iso(dueBy),
      syncRecent
    }
  }
}

export const healthStatusCode = (health: { readonly healthy: boolean }): 200 | 503 => (health.healthy ? 200 : 503)
