import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"

/** The path parameter naming an activity, shared by every group with routes under `/activities/{activityId}`. */
export const activityId = HttpApiSchema.param("activityId", Schema.String.annotations({ description: "Prefixed id, starts with activity-" }))
