import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer } from "effect"
import { makeListener } from "../../src/runtime/Daemon.ts"
import { ServicesLive } from "../../src/runtime/Services.ts"

/**
 * The daemon's own listener (body limits, direct routes) on a free port, with an HttpClient
 * bound to it: what `NodeHttpServer.layerTest` gives, over the real listener. Its services are
 * the daemon's instances (ServicesLive is memoised within one build).
 */
export const makeTestListener = (options: { readonly direct?: boolean } = {}) =>
  HttpServer.layerTestClient.pipe(
    Layer.provide(NodeHttpClient.layerWithoutAgent),
    Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
    Layer.provideMerge(makeListener({ port: 0 }, options)),
    Layer.provide(ServicesLive)
  )

export const testListener = makeTestListener()
