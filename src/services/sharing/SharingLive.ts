import * as Layer from "effect/Layer"
import { ActivityReads } from "../activities/ActivityReads.ts"
import { CardRenderer } from "./CardRenderer.ts"
import { PrivacyZones } from "./PrivacyZones.ts"
import { SharedActivity } from "./SharedActivity.ts"
import { ShareLinks } from "./ShareLinks.ts"

/** The sharing's one layer: share links, the privacy zones, what a link shows of an activity under them, and its card. */
export const SharingLive = SharedActivity.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(PrivacyZones.Default, ShareLinks.Default, CardRenderer.Default)),
  Layer.provide(ActivityReads.Default)
)
