import * as Schema from "effect/Schema"

/** What Polar AccessLink v3 answers, as far as the connector reads it (other fields are ignored). */

/** Token endpoint answer. Polar issues no refresh token: the access token lasts for years. */
export const TokenResponse = Schema.Struct({
  access_token: Schema.String.pipe(Schema.minLength(1)),
  token_type: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number),
  x_user_id: Schema.Union(Schema.Number, Schema.String)
})
export type TokenResponse = typeof TokenResponse.Type

/** An exercise id becomes a file name: only letters, digits, `-` and `_`. */
export const ExerciseId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,128}$/))

export const Exercise = Schema.Struct({
  id: ExerciseId,
  upload_time: Schema.optional(Schema.String),
  /** local time of the start, without an offset */
  start_time: Schema.optional(Schema.String),
  /** minutes east of UTC */
  start_time_utc_offset: Schema.optional(Schema.Number),
  sport: Schema.optional(Schema.String),
  detailed_sport_info: Schema.optional(Schema.String)
})
export type Exercise = typeof Exercise.Type

export const WebhookInfo = Schema.Struct({
  id: Schema.String,
  events: Schema.optional(Schema.Array(Schema.String)),
  url: Schema.String,
  active: Schema.optional(Schema.Boolean)
})
export type WebhookInfo = typeof WebhookInfo.Type

export const WebhookList = Schema.Struct({ data: Schema.Array(WebhookInfo) })

export const CreatedWebhook = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    events: Schema.optional(Schema.Array(Schema.String)),
    url: Schema.String,
    signature_secret_key: Schema.String.pipe(Schema.minLength(1))
  })
})

/** Polar's error body; OAuth errors use the `error` / `error_description` pair instead. */
export const PolarFault = Schema.Struct({
  message: Schema.optional(Schema.String),
  errorType: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String)
})

/** A webhook delivery: EXERCISE carries the exercise id in `entity_id`; PING nothing. */
export const WebhookEvent = Schema.Struct({
  event: Schema.String,
  user_id: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  entity_id: Schema.optional(Schema.String),
  timestamp: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String)
})
export type WebhookEvent = typeof WebhookEvent.Type
