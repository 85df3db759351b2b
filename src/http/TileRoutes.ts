import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { MapTiles } from "../services/maps/MapTiles.ts"
import type { ServedRoutes } from "./RouteTable.ts"

/**
 * The map tiles of every map, `/tiles/{z}/{x}/{y}` (an extension after y is allowed), from the
 * local file or the daemon's tile cache. They need no key: a tile is a piece of the world's map,
 * not the athlete's data, an image or a vector tile cannot carry the bearer header, and a shared
 * page is seen by people who have neither key nor session. Which tiles are asked says nothing
 * the route does not already show to whoever sees the page.
 */

const TILE_PATH = "/tiles/:z/:x/:y"
const NUMBER = /^\d{1,9}$/
const LAST = /^(\d{1,9})(\.[a-z]{2,5})?$/

const errorResponse = (status: number, error: string, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ error, message }, { status, headers: { "cache-control": "no-store", ...headers } })

const TileRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const maps = yield* MapTiles
    yield* router.get(
      TILE_PATH,
      Effect.gen(function*() {
        const params = yield* HttpRouter.params
        const y = LAST.exec(params["y"] ?? "")?.[1]
        if (!NUMBER.test(params["z"] ?? "") || !NUMBER.test(params["x"] ?? "") || y === undefined) {
          return errorResponse(404, "not_found", "A map tile's address is /tiles/{z}/{x}/{y}, three whole numbers.")
        }
        const request = yield* HttpServerRequest.HttpServerRequest
        return yield* maps.tile(Number(params["z"]), Number(params["x"]), Number(y)).pipe(
          Effect.map((tile) => {
            const headers = {
              etag: tile.etag,
              "cache-control": tile.cacheControl,
              "x-content-type-options": "nosniff",
              "access-control-allow-origin": "*"
            }
            return request.headers["if-none-match"] === tile.etag
              ? HttpServerResponse.empty({ status: 304, headers })
              : HttpServerResponse.uint8Array(tile.bytes, { contentType: tile.contentType, headers })
          }),
          Effect.catchTags({
            TileNotFound: (e) => Effect.succeed(errorResponse(404, "not_found", e.message)),
            TileUnavailable: (e) => Effect.succeed(errorResponse(503, "tiles_unavailable", e.message, { "retry-after": "30" }))
          })
        )
      })
    )
  })
)

export const TileRoutes: ServedRoutes<never, Layer.Layer.Context<typeof TileRoutesLive>> = {
  routes: [{ method: "GET", path: TILE_PATH }],
  live: TileRoutesLive
}
