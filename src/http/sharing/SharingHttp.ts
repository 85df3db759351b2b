import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { NotFound } from "../../schema/ApiErrors.ts"
import { PrivacySettings, PrivacyZone, PrivacyZoneInput, PrivacyZoneList } from "../../schema/SharingPrivacyZoneModels.ts"
import { Share, ShareCreate, ShareList } from "../../schema/ShareModels.ts"
import { ShareTrack } from "../../schema/ShareTrackModels.ts"
import { ActivityReads } from "../../services/activities/ActivityReads.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { CardRenderer } from "../../services/sharing/CardRenderer.ts"
import { PrivacyZones } from "../../services/sharing/PrivacyZones.ts"
import { SharedActivity } from "../../services/sharing/SharedActivity.ts"
import { shareCardSvg } from "../../services/sharing/shareCard.ts"
import { ShareLinks, showsOf } from "../../services/sharing/ShareLinks.ts"
import { WaymarkApi } from "../Api.ts"
import { jsonEncoder, jsonResponder } from "../encode/jsonResponder.ts"
import { decodeBody, optionalJsonObject, readJsonObject } from "../JsonBody.ts"

const decodeZone = decodeBody(PrivacyZoneInput)
const decodeSettings = decodeBody(PrivacySettings)
const decodeShare = decodeBody(ShareCreate)
const zoneJson = jsonResponder(PrivacyZone)
const zoneText = jsonEncoder(PrivacyZone)
const zonesJson = jsonResponder(PrivacyZoneList)
const settingsJson = jsonResponder(PrivacySettings)
const shareText = jsonEncoder(Share)
const sharesJson = jsonResponder(ShareList)
const trackJson = jsonResponder(ShareTrack)

const created = (text: string) => HttpServerResponse.text(text, { status: 201, contentType: "application/json" })

/** The owner sees the picture as a link showing everything would draw it. */
const ALL_SHOWN = showsOf({ map: true, charts: true, heartRate: true, power: true, photos: false, description: false })

export const SharingHttpLive = HttpApiBuilder.group(WaymarkApi, "sharing", (handlers) =>
  Effect.gen(function*() {
    const zones = yield* PrivacyZones
    const links = yield* ShareLinks
    const shared = yield* SharedActivity
    const renderer = yield* CardRenderer
    const reads = yield* ActivityReads
    const config = yield* AppConfig

    const zoneNotFound = (id: string) => new NotFound({ message: `Privacy zone "${id}" not found.` })
    const requireActivity = (id: string) =>
      reads.findById(id) === null ? Effect.fail(new NotFound({ message: `Activity "${id}" not found.` })) : Effect.void

    return handlers
      .handle("zones", () => Effect.map(zones.list(), (list) => zonesJson({ privacyZones: list })))
      .handleRaw("createZone", ({ request }) =>
        Effect.gen(function*() {
          const input = yield* decodeZone(yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" }))
          return created(zoneText(yield* zones.create(input)))
        }))
      .handle("zone", ({ path: { zoneId } }) =>
        Effect.flatMap(zones.find(zoneId), (zone) => (zone === null ? Effect.fail(zoneNotFound(zoneId)) : Effect.succeed(zoneJson(zone)))))
      .handle("deleteZone", ({ path: { zoneId } }) =>
        Effect.flatMap(zones.remove(zoneId), (removed) => (removed ? Effect.void : Effect.fail(zoneNotFound(zoneId)))))
      .handle("settings", () => Effect.map(zones.settings(), settingsJson))
      .handleRaw("saveSettings", ({ request }) =>
        Effect.gen(function*() {
          const input = yield* decodeSettings(yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" }))
          return settingsJson(yield* zones.saveSettings(input))
        }))
      .handle("shares", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          yield* requireActivity(activityId)
          return sharesJson({ shares: yield* links.list(activityId) })
        }))
      .handleRaw("createShare", ({ path: { activityId }, request }) =>
        Effect.gen(function*() {
          yield* requireActivity(activityId)
          // no body makes a link with the default choices
          const input = yield* decodeShare(yield* optionalJsonObject(request))
          return created(shareText(yield* links.create(activityId, showsOf(input.shows))))
        }))
      .handle("revokeShare", ({ path: { activityId, shareId } }) =>
        Effect.flatMap(
          links.revoke(activityId, shareId),
          (revoked) => (revoked ? Effect.void : Effect.fail(new NotFound({ message: `Share "${shareId}" of activity "${activityId}" not found.` })))
        ))
      .handle("shareImage", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          const view = yield* shared.view(activityId, ALL_SHOWN)
          if (view === null) return yield* new NotFound({ message: `Activity "${activityId}" not found.` })
          const png = yield* renderer.png(shareCardSvg(view, config.unitSystem))
          return HttpServerResponse.uint8Array(png, { contentType: "image/png", headers: { "cache-control": "private, no-store" } })
        }))
      .handle("shareTrack", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          yield* requireActivity(activityId)
          const track = yield* shared.trackOf(activityId)
          return trackJson({
            hasPositions: track.hasPositions,
            segments: track.segments.map((segment) => segment.map((s) => [s.latlng[0], s.latlng[1]] as const)),
            distanceInMeter: track.distanceInMeter,
            timeInSeconds: track.timeInSeconds
          })
        }))
  })
)
