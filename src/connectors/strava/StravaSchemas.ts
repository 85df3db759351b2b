import * as Schema from "effect/Schema"

/**
 * Strava payloads, decoded with only the fields Waymark uses (unknown fields are ignored).
 * `null` and absent are treated alike: both decode to an absent optional field.
 */
const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { nullable: true })

/** Strava's error shape: `{message, errors:[{resource, field, code}]}`. */
export const StravaFault = Schema.Struct({
  message: opt(Schema.String),
  errors: opt(Schema.Array(Schema.Struct({
    resource: opt(Schema.String),
    field: opt(Schema.String),
    code: opt(Schema.String)
  })))
})
export type StravaFault = typeof StravaFault.Type

export const TokenResponse = Schema.Struct({
  token_type: opt(Schema.String),
  access_token: Schema.String,
  /** Epoch seconds. */
  expires_at: Schema.Number,
  expires_in: opt(Schema.Number),
  refresh_token: opt(Schema.String)
})
export type TokenResponse = typeof TokenResponse.Type

export const Athlete = Schema.Struct({
  id: Schema.Number,
  username: opt(Schema.String),
  firstname: opt(Schema.String),
  lastname: opt(Schema.String),
  city: opt(Schema.String),
  state: opt(Schema.String),
  country: opt(Schema.String),
  sex: opt(Schema.String),
  weight: opt(Schema.Number),
  measurement_preference: opt(Schema.String),
  profile: opt(Schema.String)
})
export type Athlete = typeof Athlete.Type

export const PolylineMap = Schema.Struct({
  id: opt(Schema.String),
  summary_polyline: opt(Schema.String),
  polyline: opt(Schema.String)
})

/** `[lat, lng]`, or `[]` when the activity has no position. */
export const LatLng = Schema.Array(Schema.Number)

const activityFields = {
  id: Schema.Number,
  name: Schema.String,
  sport_type: Schema.String,
  type: opt(Schema.String),
  start_date: Schema.String,
  start_date_local: Schema.String,
  timezone: opt(Schema.String),
  distance: opt(Schema.Number),
  moving_time: opt(Schema.Number),
  elapsed_time: opt(Schema.Number),
  total_elevation_gain: opt(Schema.Number),
  average_speed: opt(Schema.Number),
  max_speed: opt(Schema.Number),
  average_heartrate: opt(Schema.Number),
  max_heartrate: opt(Schema.Number),
  average_watts: opt(Schema.Number),
  max_watts: opt(Schema.Number),
  average_cadence: opt(Schema.Number),
  kilojoules: opt(Schema.Number),
  commute: opt(Schema.Boolean),
  trainer: opt(Schema.Boolean),
  manual: opt(Schema.Boolean),
  private: opt(Schema.Boolean),
  visibility: opt(Schema.String),
  workout_type: opt(Schema.Number),
  gear_id: opt(Schema.String),
  start_latlng: opt(LatLng),
  end_latlng: opt(LatLng),
  map: opt(PolylineMap),
  total_photo_count: opt(Schema.Number),
  device_name: opt(Schema.String)
} as const

/** An item of GET /athlete/activities. */
export const SummaryActivity = Schema.Struct(activityFields)
export type SummaryActivity = typeof SummaryActivity.Type

export const Split = Schema.Struct({
  split: Schema.Number,
  distance: Schema.Number,
  elapsed_time: Schema.Number,
  moving_time: Schema.Number,
  elevation_difference: opt(Schema.Number),
  average_speed: opt(Schema.Number),
  average_grade_adjusted_speed: opt(Schema.Number),
  average_heartrate: opt(Schema.Number),
  pace_zone: opt(Schema.Number)
})
export type Split = typeof Split.Type

export const Lap = Schema.Struct({
  id: Schema.Number,
  name: opt(Schema.String),
  lap_index: opt(Schema.Number),
  split: opt(Schema.Number),
  start_date: opt(Schema.String),
  start_date_local: opt(Schema.String),
  elapsed_time: Schema.Number,
  moving_time: opt(Schema.Number),
  distance: Schema.Number,
  start_index: opt(Schema.Number),
  end_index: opt(Schema.Number),
  total_elevation_gain: opt(Schema.Number),
  average_speed: opt(Schema.Number),
  max_speed: opt(Schema.Number),
  average_heartrate: opt(Schema.Number),
  max_heartrate: opt(Schema.Number),
  average_cadence: opt(Schema.Number),
  average_watts: opt(Schema.Number),
  pace_zone: opt(Schema.Number)
})
export type Lap = typeof Lap.Type

/** GET /activities/{id}. */
export const DetailedActivity = Schema.Struct({
  ...activityFields,
  description: opt(Schema.String),
  calories: opt(Schema.Number),
  splits_metric: opt(Schema.Array(Split)),
  splits_standard: opt(Schema.Array(Split)),
  laps: opt(Schema.Array(Lap))
})
export type DetailedActivity = typeof DetailedActivity.Type

const stream = <S extends Schema.Schema.Any>(item: S) =>
  opt(Schema.Struct({
    data: Schema.Array(item),
    series_type: opt(Schema.String),
    original_size: opt(Schema.Number),
    resolution: opt(Schema.String)
  }))

/** GET /activities/{id}/streams?key_by_type=true: one entry per available stream type. */
export const ActivityStreams = Schema.Struct({
  time: stream(Schema.Number),
  distance: stream(Schema.Number),
  latlng: stream(Schema.Array(Schema.Number)),
  altitude: stream(Schema.Number),
  velocity_smooth: stream(Schema.Number),
  heartrate: stream(Schema.Number),
  cadence: stream(Schema.Number),
  watts: stream(Schema.NullOr(Schema.Number)),
  temp: stream(Schema.Number),
  moving: stream(Schema.Boolean),
  grade_smooth: stream(Schema.Number)
})
export type ActivityStreams = typeof ActivityStreams.Type

/** The stream types asked for, those the schema above reads, in its order. */
export const STREAM_KEYS = Object.keys(ActivityStreams.fields) as ReadonlyArray<keyof typeof ActivityStreams.fields>

/** An item of GET /activities/{id}/photos?size=5000; `urls["5000"]` is the full-size image. */
export const Photo = Schema.Struct({
  unique_id: opt(Schema.String),
  urls: opt(Schema.Record({ key: Schema.String, value: Schema.String })),
  caption: opt(Schema.String),
  source: opt(Schema.Number),
  created_at: opt(Schema.String),
  location: opt(LatLng)
})
export type Photo = typeof Photo.Type

/** GET /gear/{id}. */
export const Gear = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  retired: opt(Schema.Boolean),
  primary: opt(Schema.Boolean),
  distance: opt(Schema.Number),
  brand_name: opt(Schema.String),
  model_name: opt(Schema.String),
  description: opt(Schema.String)
})
export type Gear = typeof Gear.Type

export const PushSubscription = Schema.Struct({
  id: Schema.Number,
  application_id: opt(Schema.Number),
  callback_url: opt(Schema.String),
  created_at: opt(Schema.String),
  updated_at: opt(Schema.String)
})
export type PushSubscription = typeof PushSubscription.Type

export const CreatedSubscription = Schema.Struct({ id: Schema.Number })
export type CreatedSubscription = typeof CreatedSubscription.Type
