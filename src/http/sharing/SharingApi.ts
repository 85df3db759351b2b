import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { BadRequest, NotFound, UnsupportedMediaType } from "../../schema/ApiErrors.ts"
import { PrivacySettings, PrivacyZone, PrivacyZoneInput, PrivacyZoneList } from "../../schema/SharingPrivacyZoneModels.ts"
import { Share, ShareCreate, ShareList } from "../../schema/ShareModels.ts"
import { ShareTrack } from "../../schema/ShareTrackModels.ts"
import { activityId } from "../ApiParams.ts"
import { Authorization } from "../Authorization.ts"

/** Sharing an activity by a link: privacy zones and settings, the links, the picture (part of WaymarkApi). */

const zoneId = HttpApiSchema.param("zoneId", Schema.String.annotations({ description: "Prefixed id, starts with privacyZone-" }))
const shareId = HttpApiSchema.param("shareId", Schema.String.annotations({ description: "Prefixed id, starts with share-" }))

export class SharingGroup extends HttpApiGroup.make("sharing")
  .add(
    HttpApiEndpoint.get("zones", "/privacy-zones")
      .addSuccess(PrivacyZoneList)
      .annotate(OpenApi.Summary, "The privacy zones: circles no share link shows a point of")
  )
  .add(
    HttpApiEndpoint.post("createZone", "/privacy-zones")
      .setPayload(PrivacyZoneInput)
      .addSuccess(PrivacyZone, { status: 201 })
      .addError(BadRequest.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Add a privacy zone (a circle of 200 to 2,000 m); it applies at once to every link, made before or after")
  )
  .add(
    HttpApiEndpoint.get("zone")`/privacy-zones/${zoneId}`
      .addSuccess(PrivacyZone)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "One privacy zone")
  )
  .add(
    HttpApiEndpoint.del("deleteZone")`/privacy-zones/${zoneId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "Remove a privacy zone")
  )
  .add(
    HttpApiEndpoint.get("settings", "/athlete/privacy-settings")
      .addSuccess(PrivacySettings)
      .annotate(OpenApi.Summary, "How much of each end of every shared track is hidden")
  )
  .add(
    HttpApiEndpoint.put("saveSettings", "/athlete/privacy-settings")
      .setPayload(PrivacySettings)
      .addSuccess(PrivacySettings)
      .addError(BadRequest.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Set how much of each end of every shared track is hidden (0 to 2,000 m)")
  )
  .add(
    HttpApiEndpoint.get("shares")`/activities/${activityId}/shares`
      .addSuccess(ShareList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The activity's share links, newest first (their URL is shown only when made)")
  )
  .add(
    HttpApiEndpoint.post("createShare")`/activities/${activityId}/shares`
      .setPayload(ShareCreate)
      .addSuccess(Share, { status: 201 })
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Make a link that shows this activity (its visible track) to anyone who has it")
      .annotate(
        OpenApi.Description,
        "The answer's `url` is the only time the link is shown: its token (256 random bits) is stored hashed. " +
          "The link opens a page, `<url>/image.png` (a 1200×630 picture) and the allowed photos of this activity, nothing else."
      )
  )
  .add(
    HttpApiEndpoint.del("revokeShare")`/activities/${activityId}/shares/${shareId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "Revoke a share link: the next request to it is answered 404")
  )
  .add(
    HttpApiEndpoint.get("shareImage")`/activities/${activityId}/share-image.png`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/png" }))
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The 1200×630 picture a share link shows, as the links draw it (visible track only)")
  )
  .add(
    HttpApiEndpoint.get("shareTrack")`/activities/${activityId}/share-track`
      .addSuccess(ShareTrack)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The part of the route share links show, under the privacy zones and settings of the moment")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Sharing") {}
