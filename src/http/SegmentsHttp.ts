import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { BadRequest, NotFound } from "../schema/ApiErrors.ts"
import { ClimbList, ClimbSegmentCreate, SegmentCreate, SegmentDetail, SegmentEffortList, SegmentEffortPage, SegmentList, SegmentUpdate } from "../schema/SegmentModels.ts"
import { ActivityRepo } from "../services/activities/ActivityRepo.ts"
import { BadInput } from "../services/segments/segmentSources.ts"
import { Segments } from "../services/segments/Segments.ts"
import { WaymarkApi } from "./Api.ts"
import { jsonEncoder, jsonResponder } from "./encode/jsonResponder.ts"
import { decodeBody, readJsonObject } from "./JsonBody.ts"

const decodeCreate = decodeBody(SegmentCreate)
const decodeUpdate = decodeBody(SegmentUpdate)
const decodeClimb = decodeBody(ClimbSegmentCreate)
const detailJson = jsonResponder(SegmentDetail)
const detailText = jsonEncoder(SegmentDetail)
const listJson = jsonResponder(SegmentList)
const effortsJson = jsonResponder(SegmentEffortList)
const effortPageJson = jsonResponder(SegmentEffortPage)
const climbsJson = jsonResponder(ClimbList)

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
      .handle("list", ({ urlParams }) => Effect.map(segments.list(urlParams["filters[name]"]), (list) => listJson({ segments: list })))
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
          if (!(yield* segments.exists(segmentId))) return yield* new NotFound({ message: `Segment "${segmentId}" not found.` })
          return effortPageJson(yield* segments.efforts(segmentId, urlParams))
        }))
      .handle("activityEfforts", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          yield* requireActivity(activityId)
          return effortsJson({ efforts: yield* segments.activityEfforts(activityId) })
        }))
      .handle("climbs", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          const climbs = yield* segments.climbs(activityId)
          if (climbs === null) return yield* new NotFound({ message: `Activity "${activityId}" not found.` })
          return climbsJson({ climbs })
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
