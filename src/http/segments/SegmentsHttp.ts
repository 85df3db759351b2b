import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { BadRequest, NotFound } from "../../schema/ApiErrors.ts"
import { ClimbList, ClimbSegmentCreate, SegmentCreate, SegmentDetail, SegmentEffortList, SegmentEffortPage, SegmentList, SegmentUpdate } from "../../schema/SegmentModels.ts"
import { ActivityRepo } from "../../services/activities/ActivityRepo.ts"
import { BadInput } from "../../services/segments/segmentSources.ts"
import { Segments } from "../../services/segments/Segments.ts"
import { WaymarkApi } from "../Api.ts"
import { jsonEncoder } from "../encode/jsonResponder.ts"
import { keptJson } from "../encode/keptJson.ts"
import { decodeBody, readJsonObject } from "../JsonBody.ts"

const decodeCreate = decodeBody(SegmentCreate)
const decodeUpdate = decodeBody(SegmentUpdate)
const decodeClimb = decodeBody(ClimbSegmentCreate)
const detailText = jsonEncoder(SegmentDetail)
const listText = jsonEncoder(SegmentList)
const effortsText = jsonEncoder(SegmentEffortList)
const climbsText = jsonEncoder(ClimbList)
// Segments keeps its answers until the next commit: the JSON of each is written once
const detailJson = keptJson(detailText)
const listJson = keptJson((segments: typeof SegmentList.Type["segments"]) => listText({ segments }))
const effortsJson = keptJson((efforts: typeof SegmentEffortList.Type["efforts"]) => effortsText({ efforts }))
const effortPageJson = keptJson(jsonEncoder(SegmentEffortPage))
const climbsJson = keptJson((climbs: typeof ClimbList.Type["climbs"]) => climbsText({ climbs }))

const created = (segment: SegmentDetail) => HttpServerResponse.text(detailText(segment), { status: 201, contentType: "application/json" })
const badInput = (error: BadInput) => new BadRequest({ message: error.message })

export const SegmentsHttpLive = HttpApiBuilder.group(WaymarkApi, "segments", (handlers) =>
  Effect.gen(function*() {
    const segments = yield* Segments
    const activities = yield* ActivityRepo

    const existing = (id: string) =>
      Effect.flatMap(segments.get(id), (found) => (found === null ? Effect.fail(new NotFound({ message: `Segment "${id}" not found.` })) : Effect.succeed(found)))
    const requireActivity = (id: string) =>
      Effect.flatMap(activities.exists(id), (found) => (found ? Effect.void : Effect.fail(new NotFound({ message: `Activity "${id}" not found.` }))))
    const answer = (id: string) => Effect.orDie(existing(id))

    return handlers
      .handleRaw("create", ({ request }) =>
        Effect.gen(function*() {
          const input = yield* decodeCreate(yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" }))
          const id = yield* Effect.mapError(segments.create(input), badInput)
          return created(yield* answer(id))
        }))
      .handle("list", ({ urlParams }) => Effect.map(segments.list(urlParams["filters[name]"]), listJson))
      .handle("get", ({ path: { segmentId } }) => Effect.map(existing(segmentId), detailJson))
      .handleRaw("update", ({ path: { segmentId }, request }) =>
        Effect.gen(function*() {
          yield* existing(segmentId)
          const body = yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
          if (Object.keys(body).length === 0) return yield* new BadRequest({ message: "The request body must contain at least one of: name, sportGroup." })
          yield* segments.update(segmentId, yield* decodeUpdate(body))
          return detailJson(yield* answer(segmentId))
        }))
      .handle("delete", ({ path: { segmentId } }) =>
        Effect.flatMap(segments.remove(segmentId), (removed) => (removed ? Effect.void : Effect.fail(new NotFound({ message: `Segment "${segmentId}" not found.` })))))
      .handle("efforts", ({ path: { segmentId }, urlParams }) =>
        Effect.gen(function*() {
          const page = yield* segments.efforts(segmentId, urlParams)
          if (page === null) return yield* new NotFound({ message: `Segment "${segmentId}" not found.` })
          return effortPageJson(page)
        }))
      .handle("activityEfforts", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          const efforts = yield* segments.activityEfforts(activityId)
          if (efforts === null) return yield* new NotFound({ message: `Activity "${activityId}" not found.` })
          return effortsJson(efforts)
        }))
      .handle("climbs", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          const climbs = yield* segments.climbs(activityId)
          if (climbs === null) return yield* new NotFound({ message: `Activity "${activityId}" not found.` })
          return climbsJson(climbs)
        }))
      .handleRaw("climbSegment", ({ path: { activityId, climbIndex }, request }) =>
        Effect.gen(function*() {
          yield* requireActivity(activityId)
          const body = request.headers["content-type"] === undefined ? {} : yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
          const input = yield* decodeClimb(body)
          const id = yield* Effect.mapError(segments.climbSegment(activityId, climbIndex, input.name), badInput)
          if (id === null) return yield* new NotFound({ message: `Activity "${activityId}" not found.` })
          return created(yield* answer(id))
        }))
  })
)
