import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { NotFound, OriginalNotAvailable } from "../../schema/ApiErrors.ts"
import { BestEffortList, LapList, LengthList, SplitList } from "../../schema/ActivityDetailModels.ts"
import { ActivityDetail } from "../../services/activities/ActivityDetail.ts"
import { asciiFallback } from "../../services/activities/GpxWriter.ts"
import { WaymarkApi } from "../Api.ts"
import { jsonResponder } from "../encode/jsonResponder.ts"
import { etagMatches } from "../etagMatches.ts"

const lapsJson = jsonResponder(LapList)
const splitsJson = jsonResponder(SplitList)
const lengthsJson = jsonResponder(LengthList)
const bestEffortsJson = jsonResponder(BestEffortList)

export const activityNotFound = (id: string) => new NotFound({ message: `Activity "${id}" not found.` })

/** The value, or the activity's 404 when the read found no such activity. */
const orNotFound = (id: string) => <A>(value: A | null) => (value === null ? Effect.fail(activityNotFound(id)) : Effect.succeed(value))

export const ActivityDetailHttpLive = HttpApiBuilder.group(WaymarkApi, "activityDetail", (handlers) =>
  Effect.gen(function*() {
    const detail = yield* ActivityDetail
    return handlers
      .handle("streams", ({ path: { activityId }, urlParams }) =>
        Effect.gen(function*() {
          const answer = yield* detail.streams(activityId, urlParams.points).pipe(Effect.flatMap(orNotFound(activityId)))
          const request = yield* HttpServerRequest.HttpServerRequest
          const headers = { etag: answer.etag, "cache-control": "private, no-cache" }
          if (etagMatches(request.headers["if-none-match"], answer.etag)) return HttpServerResponse.empty({ status: 304, headers })
          // the body is the Streams schema's JSON, written by the service from the stored texts
          return HttpServerResponse.uint8Array(answer.body(), { contentType: "application/json", headers })
        }))
      .handle("laps", ({ path: { activityId } }) =>
        detail.laps(activityId).pipe(Effect.flatMap(orNotFound(activityId)), Effect.map((laps) => lapsJson({ laps }))))
      .handle("lengths", ({ path: { activityId } }) =>
        detail.lengths(activityId).pipe(Effect.flatMap(orNotFound(activityId)), Effect.map((lengths) => lengthsJson({ lengths }))))
      .handle("splits", ({ path: { activityId } }) =>
        detail.splits(activityId).pipe(Effect.flatMap(orNotFound(activityId)), Effect.map((splits) => splitsJson({ splits }))))
      .handle("bestEfforts", ({ path: { activityId } }) =>
        detail.bestEfforts(activityId).pipe(Effect.flatMap(orNotFound(activityId)), Effect.map((bestEfforts) => bestEffortsJson({ bestEfforts }))))
      .handle("original", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          const original = yield* detail.original(activityId).pipe(Effect.flatMap(orNotFound(activityId)))
          const notAvailable = new OriginalNotAvailable({ message: `Activity "${activityId}" has no original file: it was not imported from a file (Strava), or its file was not kept.` })
          if (original === "none") return yield* notAvailable
          // the activity may be deleted, with its file, between the lookup and the read
          const bytes = yield* Effect.tryPromise(() => fs.promises.readFile(original.path)).pipe(Effect.orElseFail(() => notAvailable))
          return HttpServerResponse.uint8Array(bytes, {
            contentType: original.contentType,
            headers: {
              "content-disposition": `attachment; filename="${asciiFallback(original.filename)}"; filename*=UTF-8''${encodeURIComponent(original.filename)}`
            }
          })
        }))
  })
)
