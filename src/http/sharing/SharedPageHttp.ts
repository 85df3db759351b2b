import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { ImageStore } from "../../services/activities/ImageStore.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { CardRenderer } from "../../services/sharing/CardRenderer.ts"
import { photoWithoutMetadata } from "../../services/sharing/photoWithoutMetadata.ts"
import { SharedActivity, type SharedView } from "../../services/sharing/SharedActivity.ts"
import { NOT_FOUND_HTML, SHARED_PAGE_CSP, sharedPageHtml } from "../../services/sharing/sharedPageHtml.ts"
import { shareCardSvg } from "../../services/sharing/shareCard.ts"
import { SHARE_PATH, ShareLinks } from "../../services/sharing/ShareLinks.ts"
import type { ServedRoutes } from "../RouteTable.ts"
import { ShareRequests } from "./ShareRequests.ts"

/**
 * What a share link opens, outside the API and without its key: the page, its picture and the
 * photos it shows, of the one activity the link was made for. The token in the path is the
 * only thing read of the request: a link never reaches another activity, the API or the
 * dashboard. Every answer, found or not, is private and kept at most a minute, carries the
 * same strict Content-Security-Policy, sends no referrer and asks not to be indexed; a wrong
 * and a revoked token get the same 404. Requests are limited per address (ShareRequests).
 */

const PAGE_PATH = `${SHARE_PATH}/:token` as const
const IMAGE_PATH = `${SHARE_PATH}/:token/image.png` as const
const PHOTO_PATH = `${SHARE_PATH}/:token/photos/:index` as const

const HEADERS = {
  "content-security-policy": SHARED_PAGE_CSP,
  // a revoked link is no longer shown by a browser's cache a minute later
  "cache-control": "private, max-age=60",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-robots-tag": "noindex, nofollow",
  "cross-origin-resource-policy": "same-origin"
}

const notFound = () => HttpServerResponse.text(NOT_FOUND_HTML, { status: 404, contentType: "text/html; charset=utf-8", headers: HEADERS })

const SharedPageLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const links = yield* ShareLinks
    const shared = yield* SharedActivity
    const renderer = yield* CardRenderer
    const images = yield* ImageStore
    const limiter = yield* ShareRequests
    const config = yield* AppConfig

    /**
     * The view of the link in the path, after the address's limit: `answer` makes the response
     * of a link that opens; a link that opens nothing answers 404 and counts more.
     */
    const serve = (answer: (view: SharedView, token: string, params: Readonly<Record<string, string | undefined>>) => Effect.Effect<HttpServerResponse.HttpServerResponse>) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const address = Option.getOrUndefined(request.remoteAddress)
        const wait = yield* limiter.admit(address, 1)
        if (wait !== null) {
          return HttpServerResponse.text(`Too many requests: try again in ${wait} s.`, {
            status: 429,
            contentType: "text/plain; charset=utf-8",
            headers: { ...HEADERS, "retry-after": String(wait) }
          })
        }
        const params = yield* HttpRouter.params
        const token = params["token"] ?? ""
        const share = yield* links.open(token)
        const view = share === null ? null : yield* shared.view(share.activityId, share.shows)
        if (view === null) {
          yield* limiter.missed(address)
          return notFound()
        }
        return yield* answer(view, token, params)
      })

    const linkOf = (token: string) => `${config.appUrl}${SHARE_PATH}/${token}`

    yield* router.get(
      PAGE_PATH,
      serve((view, token) =>
        Effect.succeed(HttpServerResponse.text(
          sharedPageHtml(view, {
            page: linkOf(token),
            image: `${linkOf(token)}/image.png`,
            photo: (index) => `${SHARE_PATH}/${token}/photos/${index}`
          }, config.unitSystem),
          { contentType: "text/html; charset=utf-8", headers: HEADERS }
        )))
    )

    yield* router.get(
      IMAGE_PATH,
      serve((view) =>
        Effect.map(renderer.png(shareCardSvg(view, config.unitSystem)), (png) =>
          HttpServerResponse.uint8Array(png, { contentType: "image/png", headers: HEADERS })))
    )

    yield* router.get(
      PHOTO_PATH,
      serve((view, _token, { index = "" }) =>
        Effect.gen(function*() {
          const photo = /^[1-9]\d{0,3}$/.test(index) ? view.photos[Number(index) - 1] : undefined
          if (photo === undefined) return notFound()
          const bytes = yield* Effect.sync(() => {
            try {
              return fs.readFileSync(images.filePath(photo.fileName))
            } catch {
              return null
            }
          })
          const clean = bytes === null ? null : photoWithoutMetadata(bytes)
          if (clean === null) return notFound()
          return HttpServerResponse.uint8Array(clean.bytes, { contentType: clean.contentType, headers: HEADERS })
        }))
    )
  })
)

export const SharedPageRoutes: ServedRoutes<never, Layer.Layer.Context<typeof SharedPageLive>> = {
  routes: [{ method: "GET", path: PAGE_PATH }, { method: "GET", path: IMAGE_PATH }, { method: "GET", path: PHOTO_PATH }],
  live: SharedPageLive
}
