import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { supervise } from "../../services/platform/supervise.ts"
import { Supervisor } from "../../services/platform/Supervisor.ts"
import { PolarLedger } from "./Ledger.ts"
import { PolarAuthorization } from "./PolarAuthorization.ts"
import { PolarClient } from "./PolarClient.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { PolarHttpLive } from "./PolarHttp.ts"
import { PollerLoopLive, PolarPoller } from "./PolarPoller.ts"
import { PolarStatus } from "./PolarStatus.ts"
import { PolarSync } from "./PolarSync.ts"
import { PolarTokens } from "./PolarTokens.ts"
import { WebhookKeeper } from "./WebhookKeeper.ts"

/**
 * The connector's composition: its services, and the supervised tree of the long-running
 * process (HTTP server, poller, webhook keeper). The process ends on SIGTERM, or by itself
 * after MAX_CYCLES cycles.
 */

/** Every service of the connector, sharing one configuration, client and set of stores. */
export const PolarServicesLive = Layer.mergeAll(
  PolarConfig.Default,
  PolarClient.Default,
  PolarTokens.Default,
  PolarLedger.Default,
  PolarAuthorization.Default,
  PolarSync.Default,
  WebhookKeeper.Default,
  Supervisor.Default
)

export type PolarServices = Layer.Layer.Success<typeof PolarServicesLive>

export const PolarProcessServicesLive = Layer.mergeAll(PolarServicesLive, PolarPoller.Default, PolarStatus.Default)

/** How often the webhook is checked (and re-activated when Polar deactivated it). */
export const WEBHOOK_CHECK_INTERVAL = "1 hour"
const WEBHOOK_RETRY = Schedule.exponential("10 seconds").pipe(Schedule.either(Schedule.spaced("15 minutes")))

/** With WEBHOOK_URL: registers the webhook once the server answers Polar's PING, then checks it every hour. */
const WebhookLoopLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* PolarConfig
    if (Option.isNone(config.webhookUrl)) return
    const keeper = yield* WebhookKeeper
    const check = keeper.ensure.pipe(
      Effect.tapError((e) => Effect.zipRight(keeper.markInactive, Effect.logWarning(`webhook: ${e.message}`))),
      Effect.retry(WEBHOOK_RETRY)
    )
    yield* supervise("PolarWebhook", Effect.forever(Effect.zipRight(check, Effect.sleep(WEBHOOK_CHECK_INTERVAL))))
  })
)

/** The long-running process around the services; the HTTP server is up before the webhook is registered. */
export const PolarProcessLive = Layer.mergeAll(
  PolarHttpLive,
  // the listener first: a busy port stops the start before any cycle runs
  PollerLoopLive.pipe(Layer.provide(PolarHttpLive)),
  WebhookLoopLive.pipe(Layer.provide(PolarHttpLive))
)

/** Runs the process until interrupted (SIGTERM), or until MAX_CYCLES cycles have run. */
export const runProcess = Effect.scoped(
  Effect.gen(function*() {
    const services = yield* Layer.build(PolarProcessServicesLive)
    const config = Context.get(services, PolarConfig)
    // a watch folder that cannot be written to stops the start, before anything runs
    if (!config.dryRun) yield* Context.get(services, PolarSync).prepare
    const context = yield* Layer.build(Layer.provideMerge(PolarProcessLive, Layer.succeedContext(services)))
    const authorization = yield* Context.get(context, PolarAuthorization).view
    yield* Effect.logInfo(
      `Polar connector started: ${
        Option.match(config.httpAddr, { onNone: () => "HTTP server off", onSome: (a) => `HTTP on ${a.host}:${a.port}` })
      }, authorization ${authorization.authorization}` +
        (authorization.authorizeUrl === null ? "" : `: open ${authorization.authorizeUrl}`)
    )
    yield* Context.get(context, PolarPoller).done
    yield* Effect.logInfo(`MAX_CYCLES=${config.maxCycles} reached: stopping`)
  })
)
