import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { NotFound } from "../schema/ApiErrors.ts"
import { errorResponse } from "./ErrorResponses.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { CONTENT_TYPES, IMAGE_FILE_NAME, ImageStore, IMAGES_URL_PATH } from "../services/activities/ImageStore.ts"
import type { ServedRoutes } from "./RouteTable.ts"

/**
 * Routes outside the bearer-protected API: the OpenAPI document, and the image files
 * (answered with a bundled placeholder in demo mode to requests without a valid key).
 */

const PLACEHOLDER_PATH = fileURLToPath(new URL("../../assets/placeholder.png", import.meta.url))

const notFound = errorResponse(new NotFound())

const OPENAPI_PATH = "/api/openapi.yaml"
const IMAGE_PATH = `${IMAGES_URL_PATH}/:name` as const

const PublicRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { api } = yield* HttpApi.Api
    const config = yield* AppConfig
    const apiKey = yield* ApiKey
    const images = yield* ImageStore
    // written, and the YAML writer loaded, when first asked for: most daemons never are
    const document = yield* Effect.cached(Effect.promise(async () => {
      const Yaml = await import("yaml")
      return Yaml.stringify({ ...OpenApi.fromApi(api), servers: [{ url: config.appUrl }] })
    }))
    const placeholder = fs.readFileSync(PLACEHOLDER_PATH)

    yield* router.get(
      OPENAPI_PATH,
      Effect.map(document, (text) => HttpServerResponse.text(text, { contentType: "application/yaml; charset=utf-8" }))
    )

    yield* router.get(
      IMAGE_PATH,
      Effect.gen(function*() {
        const { name } = yield* HttpRouter.params
        if (name === undefined || !IMAGE_FILE_NAME.test(name)) return notFound
        const request = yield* HttpServerRequest.HttpServerRequest
        if (config.demoMode && Either.isLeft(apiKey.check(request.headers["authorization"]))) {
          return HttpServerResponse.uint8Array(placeholder, {
            contentType: "image/png",
            headers: { "cache-control": "private, no-store" }
          })
        }
        const file = images.filePath(name)
        if (!fs.existsSync(file)) return notFound
        const ext = name.split(".").pop()!
        return yield* HttpServerResponse.file(file, {
          contentType: CONTENT_TYPES[ext] ?? "application/octet-stream",
          headers: { "cache-control": "private, no-store", "x-content-type-options": "nosniff" }
        }).pipe(Effect.orElseSucceed(() => notFound))
      })
    )
  })
)

export const PublicRoutes: ServedRoutes<never, Layer.Layer.Context<typeof PublicRoutesLive>> = {
  routes: [{ method: "GET", path: OPENAPI_PATH }, { method: "GET", path: IMAGE_PATH }],
  live: PublicRoutesLive
}
