/**
 * Lengths an activity's texts may have, wherever they come from (a file, the external
 * platform, a PATCH): one definition for the API schema and for the check before storing.
 */
export const MAX_NAME_LENGTH = 255
export const MAX_DESCRIPTION_LENGTH = 10_000
export const MAX_DEVICE_NAME_LENGTH = 100
/** The reason a file import failed, as stored and served. */
export const MAX_IMPORT_MESSAGE_LENGTH = 1_000

/**
 * Values a real activity can reach. Generous on purpose: ultra-distance events last up to
 * weeks (a 4,800 km race across a continent in 12 days, ocean rows of months), so only values
 * no recorded activity comes near are refused: a file beyond any of them is damaged.
 */
export const ACTIVITY_BOUNDS = {
  /**
   * earliest start: files say what they say from 1900 on (a GPX converted by GPSBabel may be
   * dated 1901 and still hold a real route); before it, the date is a clock error
   */
  earliestStart: Date.UTC(1900, 0, 1),
  /** latest start, from now: tomorrow, whatever the time zone */
  latestStartAheadMs: 24 * 3600 * 1000,
  /** 100 days */
  maxDurationSeconds: 100 * 24 * 3600,
  /** more than the Earth's circumference */
  maxDistanceMeters: 50_000_000,
  /** faster than an airliner (average, maximum and the distance over the elapsed time) */
  maxSpeedKmh: 2_000,
  /** total ascent: 100 days of 5,000 m */
  maxElevationGainMeters: 500_000,
  /** altitude samples: below the Dead Sea shore and mines, above Everest and any FIT altitude (12,607 m) */
  minAltitudeMeters: -2_000,
  maxAltitudeMeters: 15_000,
  maxHeartRate: 300,
  maxCadence: 500,
  maxPowerWatts: 10_000,
  minTemperatureCelsius: -90,
  maxTemperatureCelsius: 100,
  maxCalories: 1_000_000,
  maxKilojoules: 1_000_000,
  maxLaps: 10_000,
  maxBestEfforts: 100
} as const

/**
 * Samples a file's activity may have: 6.9 days at one per second. Bounds the work and memory
 * of parsing and computing a file (a FIT of 700,000 records parses within the parse worker's
 * heap of 512 MB, one of 1,000,000 does not). Totals, splits and best efforts come from every
 * sample.
 */
export const MAX_SAMPLES = 600_000

/**
 * Samples stored per stream: a longer recording's streams are thinned to this many for
 * storage, keeping each stretch's peaks (28 hours at one per second, 11.5 days at one per 10 s).
 */
export const MAX_STORED_SAMPLES = 100_000

/** Splits over the longest possible distance: one per kilometre plus one per mile. */
export const MAX_SPLITS = Math.ceil(ACTIVITY_BOUNDS.maxDistanceMeters / 1000) +
  Math.ceil(ACTIVITY_BOUNDS.maxDistanceMeters / 1609.344)

/** `text` cut to at most `max` characters (an ellipsis marks the cut), never splitting a surrogate pair. */
export const truncateText = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = Math.max(0, max - 1)
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return text.slice(0, end) + "…"
}
