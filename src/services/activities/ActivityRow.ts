import { MAX_DESCRIPTION_LENGTH, MAX_DEVICE_NAME_LENGTH, MAX_NAME_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"
import { type Activity, type ActivityImage, ImportSource, WorkoutType, WorldType } from "../../schema/ApiModels.ts"
import { isSportType } from "../../schema/SportType.ts"

/**
 * A row of the `activities` table and how it reads back as an Activity. Reading never fails on
 * a stored row: rows written before activities were checked (validateActivity) may hold
 * Infinity, 1e308 or a 100 KB device name, and one of them must not make every page of the
 * list that holds it unanswerable. Each value is brought back within its API type: a number
 * that is not finite becomes 0 (null where the field may be null), an integer field is rounded
 * and kept within the safe integers, a text is cut to its limit, a word outside its vocabulary
 * takes the default.
 */
export interface ActivityRow {
  readonly id: string
  readonly start_time: number
  readonly start_date_local: string
  readonly sport_type: string
  readonly name: string
  readonly description: string | null
  readonly workout_type: string | null
  readonly world_type: string
  readonly import_source: string
  readonly distance: number
  readonly elevation: number
  readonly moving_time: number
  readonly elapsed_time: number
  readonly average_speed: number
  readonly max_speed: number
  readonly calories: number | null
  readonly kilojoules: number | null
  readonly average_heart_rate: number | null
  readonly max_heart_rate: number | null
  readonly average_power: number | null
  readonly max_power: number | null
  readonly average_cadence: number | null
  readonly is_commute: number
  readonly device_name: string | null
  readonly gear_id: string | null
  readonly country_code: string | null
  readonly state: string | null
  readonly city: string | null
  readonly passed_through_countries: string
  readonly start_lat: number | null
  readonly start_lng: number | null
  readonly encoded_polyline: string | null
  readonly has_gpx: number
}

/** The columns an Activity is read from, in the order `activityRowOf` expects them. */
export const ACTIVITY_COLUMNS = [
  "id", "start_time", "start_date_local", "sport_type", "name", "description", "workout_type", "world_type", "import_source",
  "distance", "elevation", "moving_time", "elapsed_time", "average_speed", "max_speed", "calories", "kilojoules",
  "average_heart_rate", "max_heart_rate", "average_power", "max_power", "average_cadence", "is_commute", "device_name",
  "gear_id", "country_code", "state", "city", "passed_through_countries", "start_lat", "start_lng", "encoded_polyline", "has_gpx"
] as const satisfies ReadonlyArray<keyof ActivityRow>

/**
 * A row read as an array of ACTIVITY_COLUMNS' values: the SQLite driver builds an object per row
 * far more slowly (by column name, from native code) than this literal does. Written out field
 * by field, so that every row has one shape (a loop over the names stores by computed keys, the
 * slowest kind of store); a test reads every column back through it in ACTIVITY_COLUMNS order.
 */
export const activityRowOf = (values: ReadonlyArray<any>): ActivityRow => ({
  id: values[0],
  start_time: values[1],
  start_date_local: values[2],
  sport_type: values[3],
  name: values[4],
  description: values[5],
  workout_type: values[6],
  world_type: values[7],
  import_source: values[8],
  distance: values[9],
  elevation: values[10],
  moving_time: values[11],
  elapsed_time: values[12],
  average_speed: values[13],
  max_speed: values[14],
  calories: values[15],
  kilojoules: values[16],
  average_heart_rate: values[17],
  max_heart_rate: values[18],
  average_power: values[19],
  max_power: values[20],
  average_cadence: values[21],
  is_commute: values[22],
  device_name: values[23],
  gear_id: values[24],
  country_code: values[25],
  state: values[26],
  city: values[27],
  passed_through_countries: values[28],
  start_lat: values[29],
  start_lng: values[30],
  encoded_polyline: values[31],
  has_gpx: values[32]
})

const int = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) ? Math.min(Number.MAX_SAFE_INTEGER, Math.max(Number.MIN_SAFE_INTEGER, Math.round(v))) : 0

const intOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? int(v) : null)

/** km/h with 2 decimals; 0 when not a finite number. */
const speed = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.round(v * 100) / 100 : 0)

const text = (v: unknown, max: number): string => (typeof v === "string" ? truncateText(v, max) : "")

const textOrNull = (v: unknown, max: number): string | null => (typeof v === "string" ? truncateText(v, max) : null)

const oneOf = <A extends string>(literals: ReadonlyArray<A>, v: unknown, fallback: A): A =>
  typeof v === "string" && (literals as ReadonlyArray<string>).includes(v) ? (v as A) : fallback

const countries = (json: string): Array<string> => {
  try {
    const parsed: unknown = JSON.parse(json)
    return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === "string") : []
  } catch {
    return []
  }
}

const latLng = (lat: unknown, lng: unknown): [number, number] | null =>
  typeof lat === "number" && typeof lng === "number" && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? [lat, lng] : null

/** Location names come from the offline city data; this only bounds what an old row may hold. */
const MAX_PLACE_LENGTH = 255

export const toActivity = (row: ActivityRow, images: ReadonlyArray<ActivityImage>): Activity => ({
  id: row.id,
  name: text(row.name, MAX_NAME_LENGTH),
  description: text(row.description, MAX_DESCRIPTION_LENGTH),
  sportType: isSportType(row.sport_type) ? row.sport_type : "Workout",
  workoutType: row.workout_type === null ? null : oneOf(WorkoutType.literals, row.workout_type, "workout"),
  worldType: oneOf(WorldType.literals, row.world_type, "realWorld"),
  importSource: oneOf(ImportSource.literals, row.import_source, "fitFile"),
  startDateLocal: text(row.start_date_local, 32),
  distanceInMeter: int(row.distance),
  elevationInMeter: int(row.elevation),
  movingTimeInSeconds: int(row.moving_time),
  elapsedTimeInSeconds: int(row.elapsed_time),
  averageSpeedInKmPerHour: speed(row.average_speed),
  maxSpeedInKmPerHour: speed(row.max_speed),
  calories: intOrNull(row.calories),
  kilojoules: intOrNull(row.kilojoules),
  averageHeartRate: intOrNull(row.average_heart_rate),
  maxHeartRate: intOrNull(row.max_heart_rate),
  averagePower: intOrNull(row.average_power),
  maxPower: intOrNull(row.max_power),
  averageCadence: intOrNull(row.average_cadence),
  isCommute: row.is_commute === 1,
  deviceName: textOrNull(row.device_name, MAX_DEVICE_NAME_LENGTH),
  gearId: row.gear_id,
  location: {
    countryCode: textOrNull(row.country_code, MAX_PLACE_LENGTH),
    state: textOrNull(row.state, MAX_PLACE_LENGTH),
    city: textOrNull(row.city, MAX_PLACE_LENGTH)
  },
  passedThroughCountries: countries(row.passed_through_countries),
  startLatLng: latLng(row.start_lat, row.start_lng),
  encodedPolyline: row.encoded_polyline === "" ? null : row.encoded_polyline,
  hasGpx: row.has_gpx === 1,
  images
})
