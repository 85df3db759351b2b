import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:https"
import { VERSION } from "../../services/platform/version.ts"
import { loadOrCreateCertificate } from "./Certificate.ts"
import { WahooClient } from "./WahooClient.ts"
import { WahooConfig } from "./WahooConfig.ts"
import { Supervisor } from "../../services/platform/Supervisor.ts"
import { WahooScheduler } from "./WahooScheduler.ts"
import { WahooServerLive } from "./WahooServer.ts"
import { WahooSync } from "./WahooSync.ts"
import { closedWithinGrace } from "../../services/platform/closedWithinGrace.ts"

/**
 * The Wahoo connector, a process of its own: configuration, the client with its token store,
 * the sync with its history and delivery, the scheduler, and the dashboard over HTTPS
 * (self-signed certificate in STATE_DIR), launched as one layer (its logging is the
 * program's).
 */

export const WahooServicesLive = WahooScheduler.Default.pipe(
  Layer.provideMerge(WahooSync.Default),
  Layer.provideMerge(WahooClient.Default.pipe(Layer.provide(NodeHttpClient.layerUndici))),
  Layer.provideMerge(Supervisor.Default)
)

/** HTTPS on HOST:PORT with the certificate of STATE_DIR (made on the first start). */
export const HttpsListenerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* WahooConfig
    const redirectHost = new URL(config.redirectUri).hostname.replace(/^\[|\]$/g, "")
    const { cert, key } = yield* loadOrCreateCertificate(config.stateDir, [redirectHost])
    return NodeHttpServer.layer(() => closedWithinGrace(createServer({ cert, key })), { port: config.port, host: config.host })
  })
)

/** The whole connector; its HttpServer and services stay visible (tests read the bound address). */
export const WahooConnectorLive = Layer.mergeAll(
  WahooServerLive,
  Layer.effectDiscard(Effect.logInfo(`waymark Wahoo connector v${VERSION} started`))
).pipe(
  Layer.provideMerge(HttpsListenerLive),
  Layer.provideMerge(WahooServicesLive),
  Layer.provideMerge(WahooConfig.Default)
)

export type WahooConnectorServices = Layer.Layer.Success<typeof WahooConnectorLive>
