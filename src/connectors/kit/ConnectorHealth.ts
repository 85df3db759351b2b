/**
 * What a connector's `/healthz` answers, the same for every connector: 200 with
 * `healthy: true` while it can deliver, else 503 with `healthy: false` and `reason`, one
 * sentence saying why (nobody has authorized yet, the cloud refused the tokens, no sync
 * completed in time). `checks` holds the connector's own findings.
 */
export type AuthorizationCheck = "ok" | "required" | "revoked" | "consent-required"

export interface ConnectorHealth<Checks extends { readonly authorization: AuthorizationCheck }> {
  readonly healthy: boolean
  readonly reason: string | null
  readonly checks: Checks
}

export const healthStatusCode = (health: { readonly healthy: boolean }): 200 | 503 => (health.healthy ? 200 : 503)
