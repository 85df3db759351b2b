import * as HttpClient from "@effect/platform/HttpClient"
import { ConfigProvider, Duration, Effect, Layer } from "effect"
import * as path from "node:path"
import { makeDaemon, type ServerServices } from "../../src/runtime/Daemon.ts"
import { ServicesLive } from "../../src/runtime/Services.ts"
import { SupervisionPolicy, type Supervisor } from "../../src/services/platform/Supervisor.ts"
import type { Root } from "../support/ImportHarness.ts"
import { testListener } from "../support/testListener.ts"

/** Pauses short enough for a test to see a loop fail several times in a row. */
export const FAST_POLICY = {
  firstBackoff: Duration.millis(20),
  maxBackoff: Duration.millis(100),
  stableAfter: Duration.seconds(30),
  failingAfter: 3
}

/**
 * The whole daemon (makeDaemon) over `root` on the daemon's listener (testListener), with `extra` (for
 * example a loop broken on purpose) supervised by the same Supervisor, and `policy`.
 */
export const healthDaemon = (
  root: Root,
  options: { readonly extra?: Layer.Layer<never, never, Supervisor>; readonly policy?: typeof FAST_POLICY } = {}
) => {
  const server = Layer.effectContext(Effect.context<ServerServices>())
  return Layer.mergeAll(makeDaemon(server), (options.extra ?? Layer.empty).pipe(Layer.provide(ServicesLive)), ServicesLive).pipe(
    Layer.provideMerge(testListener),
    Layer.provide(Layer.succeed(SupervisionPolicy, options.policy ?? FAST_POLICY)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(root.env)))))
  )
}

export const logsDirOf = (root: Root) => path.join(root.storageDir, "files", "logs")

/** GET without any key; the status and the body as text and JSON. */
export const probe = (url: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.get(url)
    const text = yield* response.text
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, text, json, headers: response.headers }
  }).pipe(Effect.scoped, Effect.orDie)

/** Probes `url` until `until` holds (10 s at most). */
export const probeUntil = (url: string, until: (answer: Effect.Effect.Success<ReturnType<typeof probe>>) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    for (;;) {
      const answer = yield* probe(url)
      if (until(answer) || Date.now() > deadline) return answer
      yield* Effect.sleep("50 millis")
    }
  })
