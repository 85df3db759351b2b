import { type ConnectorHealth, connectorHealth } from "../kit/ConnectorHealth.ts"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { shortLongStatus, type ShortLongStatus } from "../kit/RateLimit.ts"
import { candidatesOf, countsOf, type LedgerCounts, PolarLedger } from "./Ledger.ts"
import { type AuthorizationState, PolarAuthorization } from "./PolarAuthorization.ts"
import { PolarClient } from "./PolarClient.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { PolarPoller } from "./PolarPoller.ts"
import { type CycleReport, PolarSync } from "./PolarSync.ts"
import { type WebhookStatus, WebhookKeeper } from "./WebhookKeeper.ts"

/**
 * What `/status` and `/healthz` answer. Healthy means: authorized (a token Polar has not
 * refused), and a cycle completed within the last three poll intervals (counted from the
 * start while none has yet). No secret ever appears here.
 */

export interface PolarStatusBody {
  readonly healthy: boolean
  readonly startedAt: string
  readonly cycles: number
  readonly lastSuccessfulSync: string | null
  readonly nextRunAt: string | null
  readonly backoffSeconds: number
  readonly authorization: AuthorizationState
  readonly authorizeUrl: string | null
  readonly authorizationError: string | null
  readonly polarUser: string | null
  readonly lastError: string | null
  readonly lastCycle: CycleReport | null
  readonly backlog: number
  readonly exercises: LedgerCounts
  readonly webhook: WebhookStatus
  readonly rateLimit: ShortLongStatus
}

export type HealthBody = ConnectorHealth

const iso = (ms: number) => new Date(ms).toISOString()

export class PolarStatus extends Effect.Service<PolarStatus>()("connectors/polar/PolarStatus", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    const poller = yield* PolarPoller
    const ledger = yield* PolarLedger
    const authorization = yield* PolarAuthorization
    const webhook = yield* WebhookKeeper
    const client = yield* PolarClient
    const sync = yield* PolarSync
    const interval = Duration.toMillis(config.pollInterval)

    const health = Effect.gen(function*() {
      const state = yield* poller.status
      const stored = (yield* ledger.get).lastSuccessfulSync
      const { authorization: auth, authorizationError } = yield* authorization.view
      return connectorHealth({
        now: yield* Clock.currentTimeMillis,
        startedAt: poller.startedAt,
        authorization: auth,
        authorizationProblem: authorizationError ?? `authorization ${auth}`,
        completedSyncs: [
          ...Option.toArray(Option.map(state.lastSuccessAt, DateTime.toEpochMillis)),
          ...(stored === null ? [] : [Date.parse(stored)])
        ],
        interval: () => interval
      }) satisfies HealthBody
    })

    const status = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const state = yield* poller.status
      const current = yield* ledger.get
      const h = yield* health
      const view = yield* authorization.view
      return {
        healthy: h.healthy,
        startedAt: iso(poller.startedAt),
        cycles: state.cycles,
        lastSuccessfulSync: h.checks.lastSuccessfulSync,
        nextRunAt: Option.match(state.nextRunAt, { onNone: () => null, onSome: DateTime.formatIso }),
        backoffSeconds: Math.round(Duration.toSeconds(state.backoff)),
        ...view,
        lastError: Option.getOrNull(state.lastError),
        lastCycle: Option.getOrNull(yield* sync.lastCycle),
        backlog: candidatesOf(current, config.maxAttempts).length,
        exercises: countsOf(current),
        webhook: yield* webhook.status,
        rateLimit: shortLongStatus(yield* client.rateLimit, now)
      } satisfies PolarStatusBody
    })

    return { status, health } as const
  }),
  dependencies: [
    PolarConfig.Default,
    PolarPoller.Default,
    PolarLedger.Default,
    PolarAuthorization.Default,
    WebhookKeeper.Default,
    PolarClient.Default,
    PolarSync.Default
  ]
}) {}
