import * as Schema from "effect/Schema"

/** A share link: one activity shown to anyone who has the link, never the API or the dashboard. */

/** What a link shows besides the name, date, sport and key figures of the visible track. */
export const SHOW_NAMES = ["map", "charts", "heartRate", "power", "photos", "description"] as const
export type ShowName = (typeof SHOW_NAMES)[number]

const flag = (name: ShowName, what: string, byDefault: boolean) =>
  Schema.optionalWith(
    Schema.Boolean.annotations({ message: () => `"shows.${name}" must be true or false.` }),
    { exact: true }
  ).annotations({ description: `${what} (${byDefault} when left out)` })

export const SHOW_DEFAULTS: { readonly [K in ShowName]: boolean } = {
  map: true,
  charts: true,
  heartRate: false,
  power: false,
  photos: false,
  description: false
}

export const ShowsInput = Schema.Struct({
  map: flag("map", "The visible track on a map", SHOW_DEFAULTS.map),
  charts: flag("charts", "The elevation chart (and heart rate and power when shown) along the visible track", SHOW_DEFAULTS.charts),
  heartRate: flag("heartRate", "Heart rate figures and chart", SHOW_DEFAULTS.heartRate),
  power: flag("power", "Power figures and chart", SHOW_DEFAULTS.power),
  photos: flag("photos", "The activity's photos, without their metadata", SHOW_DEFAULTS.photos),
  description: flag("description", "The activity's description", SHOW_DEFAULTS.description)
}).annotations({
  message: () => `"shows" must be an object of true or false values, of: ${SHOW_NAMES.join(", ")}.`,
  parseOptions: { onExcessProperty: "error" }
})

export const ShareCreate = Schema.Struct({
  shows: Schema.optionalWith(ShowsInput, { exact: true })
}).annotations({ identifier: "ShareCreate", description: "An empty body shows the map and the charts" })
export type ShareCreate = typeof ShareCreate.Type

export const Shows = Schema.Struct({
  map: Schema.Boolean,
  charts: Schema.Boolean,
  heartRate: Schema.Boolean,
  power: Schema.Boolean,
  photos: Schema.Boolean,
  description: Schema.Boolean
}).annotations({ identifier: "ShareShows" })
export type Shows = typeof Shows.Type

export const Share = Schema.Struct({
  id: Schema.String.annotations({ description: "Prefixed id, starts with share-" }),
  activityId: Schema.String,
  url: Schema.NullOr(Schema.String).annotations({
    description: "The link, in the answer that creates it only: its token is stored hashed and cannot be shown again"
  }),
  createdOn: Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time" } }),
  shows: Shows
}).annotations({ identifier: "Share" })
export type Share = typeof Share.Type

export const ShareList = Schema.Struct({ shares: Schema.Array(Share) }).annotations({ identifier: "ShareList" })
export type ShareList = typeof ShareList.Type
