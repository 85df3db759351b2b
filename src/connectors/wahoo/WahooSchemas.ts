import * as Schema from "effect/Schema"

/** What the Wahoo cloud answers, as far as the connector reads it (other fields are ignored). */

/** `POST /oauth/token`, for the authorization code and for a refresh. */
export const TokenResponse = Schema.Struct({
  access_token: Schema.NonEmptyString,
  refresh_token: Schema.optional(Schema.String),
  expires_in: Schema.Number,
  token_type: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})
export type TokenResponse = typeof TokenResponse.Type

const FileRef = Schema.Struct({ url: Schema.optional(Schema.NullOr(Schema.String)) })

export const WorkoutSummary = Schema.Struct({
  starts: Schema.optional(Schema.NullOr(Schema.String)),
  file: Schema.optional(Schema.NullOr(FileRef))
})

/** One item of `GET /v1/workouts`. */
export const Workout = Schema.Struct({
  id: Schema.Union(Schema.Number, Schema.NonEmptyString),
  starts: Schema.optional(Schema.NullOr(Schema.String)),
  created_at: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  workout_summary: Schema.optional(Schema.NullOr(WorkoutSummary)),
  file: Schema.optional(Schema.NullOr(FileRef)),
  file_url: Schema.optional(Schema.NullOr(Schema.String))
})
export type Workout = typeof Workout.Type

/** `GET /v1/workouts?page=&per_page=`: newest first. */
export const WorkoutsPage = Schema.Struct({
  workouts: Schema.Array(Workout),
  total: Schema.optional(Schema.Number),
  page: Schema.optional(Schema.Number),
  per_page: Schema.optional(Schema.Number)
})
export type WorkoutsPage = typeof WorkoutsPage.Type

/** The tokens kept in `STATE_DIR/tokens.json`; the refresh token is single-use. */
export const WahooTokens = Schema.Struct({
  accessToken: Schema.Redacted(Schema.String),
  refreshToken: Schema.Redacted(Schema.String),
  /** When the access token expires (epoch ms). */
  expiresAt: Schema.Number,
  scope: Schema.optional(Schema.String)
})
export type WahooTokens = typeof WahooTokens.Type

/** Where a workout's FIT file is: the summary's file, else the workout's own file fields. */
export const fileUrlOf = (workout: Workout): string | undefined => {
  const candidates = [workout.workout_summary?.file?.url, workout.file?.url, workout.file_url]
  return candidates.find((u): u is string => typeof u === "string" && u.trim() !== "")
}

/** When the workout started: `starts`, else the summary's, else `created_at`; undefined when none parses. */
export const startOf = (workout: Workout): Date | undefined => {
  for (const raw of [workout.starts, workout.workout_summary?.starts, workout.created_at]) {
    if (typeof raw !== "string") continue
    const at = Date.parse(raw)
    if (!Number.isNaN(at)) return new Date(at)
  }
  return undefined
}

/** `<YYYY-MM-DD>_workout_<id>.fit` (UTC date), or `workout_<id>.fit` without a start. */
export const fileNameOf = (workout: Workout): string => {
  const id = String(workout.id).replace(/[^A-Za-z0-9_-]/g, "_")
  const start = startOf(workout)
  return start === undefined ? `workout_${id}.fit` : `${start.toISOString().slice(0, 10)}_workout_${id}.fit`
}
