import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { MapTiles, type Tile } from "../../services/maps/MapTiles.ts"
import type { ServedRoutes } from "../RouteTable.ts"
import { ServedAnswers } from "../ServedAnswers.ts"
import { etagMatches } from "../etagMatches.ts"

/**
 * The map tiles of every map, `/tiles/{z}/{x}/{y}` (an extension after y is allowed), from the
 * local file or the daemon's tile cache. They need no key: a tile is a piece of the world's map,
 * not the athlete's data, an image or a vector tile cannot carry the bearer header, and a shared
 * page is seen by people who have neither key nor session. Which tiles are asked says nothing
 * the route does not already show to whoever sees the page.
 *
 * The local file itself is served too, at `/tiles/file.pmtiles`, whole or by one byte range
 * (`Range: bytes=…`, answered 206 with its Content-Range; 416 past the file's end), for a client
 * that reads PMTiles itself.
 */

const TILE_PATH = "/tiles/:z/:x/:y"
const NUMBER = /^\d{1,9}$/
const LAST = /^(\d{1,9})(\.[a-z]{2,5})?$/

const FILE_PATH = "/tiles/file.pmtiles"

/** A byte range, its last byte included. */
interface ByteRange {
  readonly start: number
  readonly end: number
}

/**
 * The one byte range a Range header asks of `size` bytes; "whole" when the header asks nothing
 * this answers by a range (none, another unit, several ranges, a range written wrong: the whole
 * file is answered, as HTTP allows), "unsatisfiable" when it starts past the end.
 */
export const byteRangeOf = (header: string | ReadonlyArray<string> | undefined, size: number): ByteRange | "whole" | "unsatisfiable" => {
  const asked = typeof header === "string" ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null
  if (asked === null || (asked[1] === "" && asked[2] === "")) return "whole"
  if (asked[1] === "") {
    // the last n bytes
    const last = Number(asked[2])
    return last === 0 || size === 0 ? "unsatisfiable" : { start: Math.max(0, size - last), end: size - 1 }
  }
  const start = Number(asked[1])
  const end = asked[2] === "" ? size - 1 : Math.min(Number(asked[2]), size - 1)
  if (asked[2] !== "" && Number(asked[2]) < start) return "whole"
  return start >= size ? "unsatisfiable" : { start, end }
}

const errorResponse = (status: number, error: string, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ error, message }, { status, headers: { "cache-control": "no-store", ...headers } })

const TileRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const maps = yield* MapTiles
    const served = yield* ServedAnswers

    /** A tile's two answers, made once for a tile kept in memory: responses are values, written as they are. */
    const made = new WeakMap<Tile, { readonly ok: HttpServerResponse.HttpServerResponse; readonly notModified: HttpServerResponse.HttpServerResponse }>()

    /** The tile's answer: 304 when the browser holds it already (its ETag), else its bytes. */
    const answerOf = (tile: Tile, ifNoneMatch: string | ReadonlyArray<string> | undefined) => {
      let answers = made.get(tile)
      if (answers === undefined) {
        const headers = {
          etag: tile.etag,
          "cache-control": tile.cacheControl,
          "x-content-type-options": "nosniff",
          "access-control-allow-origin": "*"
        }
        answers = {
          ok: HttpServerResponse.uint8Array(tile.bytes, { contentType: tile.contentType, headers }),
          notModified: HttpServerResponse.empty({ status: 304, headers })
        }
        made.set(tile, answers)
      }
      return etagMatches(ifNoneMatch, tile.etag) ? answers.notModified : answers.ok
    }

    yield* router.get(
      FILE_PATH,
      Effect.gen(function*() {
        const file = maps.file
        if (file === undefined) return errorResponse(404, "not_found", "There is no map file: MAP_TILES_FILE is not set, and tiles are fetched through /tiles/{z}/{x}/{y}.")
        const request = yield* HttpServerRequest.HttpServerRequest
        const headers = {
          etag: file.etag,
          "accept-ranges": "bytes",
          "cache-control": "public, max-age=3600",
          "x-content-type-options": "nosniff",
          "access-control-allow-origin": "*"
        }
        if (etagMatches(request.headers["if-none-match"], file.etag)) return HttpServerResponse.empty({ status: 304, headers })
        // a range of another version of the file is no part of this one: the whole file
        const ifRange = request.headers["if-range"]
        const range = ifRange === undefined || ifRange === file.etag ? byteRangeOf(request.headers["range"], file.sizeBytes) : "whole"
        if (range === "unsatisfiable") {
          return errorResponse(416, "range_not_satisfiable", `The map file has ${file.sizeBytes} bytes: a range must start within them.`, { "content-range": `bytes */${file.sizeBytes}` })
        }
        const answer = range === "whole"
          ? HttpServerResponse.file(file.path, { contentType: "application/octet-stream", headers })
          : HttpServerResponse.file(file.path, {
            status: 206,
            contentType: "application/octet-stream",
            headers: { ...headers, "content-range": `bytes ${range.start}-${range.end}/${file.sizeBytes}` },
            offset: range.start,
            bytesToRead: range.end - range.start + 1
          })
        return yield* answer.pipe(
          // the platform's own tag (from the file's present state) would differ from the tiles'
          Effect.map(HttpServerResponse.setHeader("etag", file.etag)),
          Effect.catchAll((e) => Effect.succeed(errorResponse(503, "tiles_unavailable", `The map file cannot be read: ${e.message}.`)))
        )
      })
    )

    // in front of the app: a tile kept in memory is answered at once, one read from the file by an effect of its own
    yield* served.getWith(router, TILE_PATH, ({ headers, params }) => {
      const y = LAST.exec(params["y"] ?? "")?.[1]
      if (!NUMBER.test(params["z"] ?? "") || !NUMBER.test(params["x"] ?? "") || y === undefined) {
        return errorResponse(404, "not_found", "A map tile's address is /tiles/{z}/{x}/{y}, three whole numbers.")
      }
      const [z, x] = [Number(params["z"]), Number(params["x"])]
      const kept = maps.tileNow(z, x, Number(y))
      if (kept !== undefined) return answerOf(kept, headers["if-none-match"])
      return maps.tile(z, x, Number(y)).pipe(
        Effect.map((tile) => answerOf(tile, headers["if-none-match"])),
        Effect.catchTags({
          TileNotFound: (e) => Effect.succeed(errorResponse(404, "not_found", e.message)),
          TileUnavailable: (e) => Effect.succeed(errorResponse(503, "tiles_unavailable", e.message, { "retry-after": "30" }))
        })
      )
    })
  })
)

export const TileRoutes: ServedRoutes<never, Layer.Layer.Context<typeof TileRoutesLive>> = {
  routes: [{ method: "GET", path: TILE_PATH }, { method: "GET", path: FILE_PATH }],
  live: TileRoutesLive
}
