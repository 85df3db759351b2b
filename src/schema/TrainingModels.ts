import * as Schema from "effect/Schema"
import { CalendarDate } from "./CalendarDate.ts"
import { activityFilterFields, bracketParams } from "./QueryParams.ts"
import { SportType } from "./ActivityFields.ts"

/** Request and response bodies of the training analysis: thresholds, an activity's analysis, the power curve and the training load. */

// ---------------------------------------------------------------------------------------
// Thresholds

/** Each threshold: its unit and the range a human body (or a power meter on one) can have. */
export const THRESHOLD_RANGES = {
  cyclingFtp: { min: 20, max: 1000, unit: "watts", description: "Functional threshold power on the bike (rides)" },
  runningFtp: { min: 20, max: 1000, unit: "watts", description: "Functional threshold power running, from a running power meter (runs)" },
  maxHeartRate: { min: 100, max: 250, unit: "beats per minute", description: "Maximum heart rate (heart-rate zones, TRIMP)" },
  restingHeartRate: { min: 20, max: 150, unit: "beats per minute", description: "Resting heart rate (TRIMP)" },
  lactateThresholdHeartRate: { min: 80, max: 240, unit: "beats per minute", description: "Heart rate at the lactate threshold: one hour at it scores 100 in hrTSS" }
} as const
export type ThresholdName = keyof typeof THRESHOLD_RANGES

const rangeMessage = (name: ThresholdName) => {
  const r = THRESHOLD_RANGES[name]
  return `"${name}" must be a whole number of ${r.unit} from ${r.min} to ${r.max}, or null.`
}

const thresholdValue = (name: ThresholdName) => {
  const r = THRESHOLD_RANGES[name]
  const message = () => rangeMessage(name)
  return Schema.NullOr(
    Schema.Number.annotations({ message }).pipe(
      Schema.int({ message }),
      Schema.between(r.min, r.max, { message })
    )
  ).annotations({ message, description: `${r.description}, ${r.unit}; null when unknown` })
}

const thresholdFields = {
  cyclingFtp: thresholdValue("cyclingFtp"),
  runningFtp: thresholdValue("runningFtp"),
  maxHeartRate: thresholdValue("maxHeartRate"),
  restingHeartRate: thresholdValue("restingHeartRate"),
  lactateThresholdHeartRate: thresholdValue("lactateThresholdHeartRate")
}

const day = Schema.String.annotations({ description: "Calendar date", jsonSchema: { type: "string", format: "date" } })

export const Thresholds = Schema.Struct({
  on: day.annotations({ description: "The set is in force from this date until the next set's" }),
  ...thresholdFields
}).annotations({ identifier: "Thresholds", description: "A set of thresholds, in force from its date until the next set's" })
export type Thresholds = typeof Thresholds.Type

export const ThresholdsList = Schema.Struct({ thresholds: Schema.Array(Thresholds) }).annotations({
  identifier: "ThresholdsList",
  description: "Every set of thresholds, newest first"
})

/** POST /athlete/thresholds: a missing threshold is null. */
export const ThresholdsInput = Schema.Struct({
  on: Schema.propertySignature(CalendarDate("on")).annotations({ missingMessage: () => '"on" is required.' }),
  cyclingFtp: Schema.optionalWith(thresholdFields.cyclingFtp, { default: () => null }),
  runningFtp: Schema.optionalWith(thresholdFields.runningFtp, { default: () => null }),
  maxHeartRate: Schema.optionalWith(thresholdFields.maxHeartRate, { default: () => null }),
  restingHeartRate: Schema.optionalWith(thresholdFields.restingHeartRate, { default: () => null }),
  lactateThresholdHeartRate: Schema.optionalWith(thresholdFields.lactateThresholdHeartRate, { default: () => null })
}).annotations({
  identifier: "ThresholdsInput",
  description: "A set of thresholds in force from `on` (the same date replaces its set); each threshold an integer or null (missing: null). " +
    "Heart rates must rise from resting to lactate threshold to maximum."
})

/** Why a set of heart rates cannot be, naming the field; undefined when it can. */
export const thresholdsProblem = (set: Omit<Thresholds, "on">): string | undefined => {
  const { restingHeartRate: rest, lactateThresholdHeartRate: lthr, maxHeartRate: max } = set
  if (rest !== null && lthr !== null && lthr <= rest) return `"lactateThresholdHeartRate" (${lthr}) must be above "restingHeartRate" (${rest}).`
  if (lthr !== null && max !== null && lthr >= max) return `"lactateThresholdHeartRate" (${lthr}) must be below "maxHeartRate" (${max}).`
  if (rest !== null && max !== null && rest >= max) return `"restingHeartRate" (${rest}) must be below "maxHeartRate" (${max}).`
  return undefined
}

// ---------------------------------------------------------------------------------------
// One activity's analysis

const curveEntry = {
  durationInSeconds: Schema.Int.annotations({ description: "1, 5, 10, 15, 30 s, 1, 2, 3, 5, 8, 10, 12, 20, 30, 45, 60 min, 90 min, 2 to 24 h: each that fits" }),
  watts: Schema.Int.annotations({ description: "The best mean power over that duration, W" })
}

export const PowerCurvePoint = Schema.Struct(curveEntry).annotations({ identifier: "PowerCurvePoint" })

const zoneFields = {
  zone: Schema.Int.annotations({ description: "1 for the lowest" }),
  name: Schema.String
}

export const PowerZone = Schema.Struct({
  ...zoneFields,
  minWatts: Schema.Number.annotations({ description: "Lower bound, included: a value on a bound belongs to the upper zone" }),
  maxWatts: Schema.NullOr(Schema.Number).annotations({ description: "Upper bound, excluded; null for the last zone" }),
  timeInSeconds: Schema.Int
}).annotations({ identifier: "PowerZone", description: "A Coggan power zone: lower bounds at 0, 55, 75, 90, 105, 120 and 150 % of FTP" })

export const HeartRateZone = Schema.Struct({
  ...zoneFields,
  minHeartRate: Schema.Number.annotations({ description: "Lower bound in bpm, included: a value on a bound belongs to the upper zone" }),
  maxHeartRate: Schema.NullOr(Schema.Number).annotations({ description: "Upper bound in bpm, excluded; null for the last zone" }),
  timeInSeconds: Schema.Int
}).annotations({ identifier: "HeartRateZone", description: "A heart-rate zone: lower bounds at 0, 60, 70, 80 and 90 % of maximum heart rate" })

const nullable = (description: string) => Schema.NullOr(Schema.Number).annotations({ description })

export const ActivityAnalysis = Schema.Struct({
  activityId: Schema.String,
  sportType: SportType,
  thresholds: Schema.NullOr(Thresholds).annotations({ description: "The set in force on the activity's local date; null when none is" }),
  ftp: Schema.NullOr(Schema.Int).annotations({ description: "The FTP of the activity's sport in that set: cycling FTP for rides, running FTP for runs" }),
  normalizedPower: Schema.NullOr(Schema.Int).annotations({
    description: "Coggan's normalized power, W: the 30-second rolling mean of power (1 s grid, from the 30th second on), raised to the 4th power, averaged, 4th root"
  }),
  intensityFactor: nullable("NP / FTP, 3 decimals"),
  trainingStressScore: nullable("Coggan's TSS: seconds × NP × IF / (FTP × 3600) × 100, 1 decimal"),
  trimp: nullable("Banister's TRIMP: moving minutes × x × 0.64 × e^(1.92x), x = (average HR − resting) / (max − resting), 1 decimal"),
  heartRateStressScore: nullable("hrTSS: TRIMP scaled so that one hour at the lactate-threshold heart rate scores 100, 1 decimal"),
  trainingLoad: nullable("The training stress score where there is power and an FTP, else the hrTSS; null when neither can be computed"),
  trainingLoadSource: Schema.NullOr(Schema.Literal("power", "heartRate")),
  workInKilojoules: nullable("The work of the power samples, kJ, 1 decimal"),
  powerCurve: Schema.NullOr(Schema.Array(PowerCurvePoint)).annotations({ description: "Best mean power over each standard duration that fits; null without power" }),
  powerZones: Schema.NullOr(Schema.Array(PowerZone)).annotations({ description: "Time in each power zone; null without power or FTP" }),
  heartRateZones: Schema.NullOr(Schema.Array(HeartRateZone)).annotations({ description: "Time in each heart-rate zone; null without heart rate or maximum heart rate" }),
  gradeAdjustedPaceInSecondsPerKm: nullable(
    "Runs: the pace on the flat that costs as much energy (Minetti 2002 cost of running, gradients read over 100 m), s/km, 1 decimal"
  ),
  paceInSecondsPer100m: nullable("Swims: moving time per 100 m, 1 decimal")
}).annotations({
  identifier: "ActivityAnalysis",
  description: "The training analysis of an activity under the thresholds in force on its date; a figure that needs a missing sensor or threshold is null, never 0"
})
export type ActivityAnalysis = typeof ActivityAnalysis.Type

// ---------------------------------------------------------------------------------------
// The history

export const HistoryPowerCurvePoint = Schema.Struct({
  ...curveEntry,
  activityId: Schema.String.annotations({ description: "The activity the best comes from" }),
  on: day.annotations({ description: "That activity's local date" })
}).annotations({ identifier: "HistoryPowerCurvePoint" })

export const EstimatedFtpMethod = Schema.Literal("criticalPower", "twentyMinutes")

export const PowerCurveAnswer = Schema.Struct({
  powerCurve: Schema.Array(HistoryPowerCurvePoint),
  estimatedFtp: Schema.NullOr(Schema.Int).annotations({
    description: "An FTP estimated from this curve, W: the critical power of the two-parameter model (work = CP × t + W′) fitted by least squares to the bests " +
      "from 3 to 20 minutes when there are three of them and the fit makes sense (CP and W′ positive, CP below the best 3 minutes); else 95 % of the best 20 minutes; " +
      "null when there is neither"
  }),
  estimatedFtpMethod: Schema.NullOr(EstimatedFtpMethod).annotations({ description: "Which of the two gave estimatedFtp" })
}).annotations({ identifier: "PowerCurve", description: "The best of the selected activities at each duration, shortest first" })
export type PowerCurveAnswer = typeof PowerCurveAnswer.Type

export const TrainingDay = Schema.Struct({
  on: day,
  load: Schema.Number.annotations({ description: "The sum of that day's training loads" }),
  fitness: Schema.Number.annotations({ description: "Chronic training load: the load's exponentially weighted average over 42 days (1 − e^(−1/42) a day)" }),
  fatigue: Schema.Number.annotations({ description: "Acute training load: the same over 7 days" }),
  form: Schema.Number.annotations({ description: "That day's fitness minus its fatigue" })
}).annotations({ identifier: "TrainingDay" })

export const TrainingLoadAnswer = Schema.Struct({ days: Schema.Array(TrainingDay) }).annotations({
  identifier: "TrainingLoad",
  description: "One row per calendar day, oldest first; the averages run from the first activity on, whatever the range asked"
})
export type TrainingLoadAnswer = typeof TrainingLoadAnswer.Type

/**
 * The most days one training load answers: ten years (what any ten calendar years hold at
 * most). An answer is a row per day, built and written in one go: 200 years were 4.5 MB and a
 * second of the event loop; ten years are about 220 KB.
 */
export const TRAINING_LOAD_MAX_DAYS = 3_653

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000
const dayOf = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10)

/** The earliest `filters[from]` answered with `to` as the last day. */
export const earliestTrainingLoadFrom = (to: string): string => dayOf(dayNumber(to) - TRAINING_LOAD_MAX_DAYS + 1)

/** What is wrong with a training load's range, if anything: longer than TRAINING_LOAD_MAX_DAYS, said with the bound. */
export const trainingLoadRangeProblem = (from: string, to: string): string | undefined => {
  const days = dayNumber(to) - dayNumber(from) + 1
  return days <= TRAINING_LOAD_MAX_DAYS ? undefined :
    `"filters[from]" to "filters[to]" spans at most ${TRAINING_LOAD_MAX_DAYS.toLocaleString("en-US")} days (ten years): from ${from} to ${to} is ${days.toLocaleString("en-US")}; set "filters[from]" to ${earliestTrainingLoadFrom(to)} or later.`
}

const boundNote = `; at most ${TRAINING_LOAD_MAX_DAYS.toLocaleString("en-US")} days (ten years) from "filters[from]" to "filters[to]", else 400`

export const TrainingLoadParams = bracketParams({
  "filters[from]": activityFilterFields["filters[from]"].annotations({
    description: `First day shown (default: the first activity's day, or ten years before the last day shown if that is earlier)${boundNote}`
  }),
  "filters[to]": activityFilterFields["filters[to]"].annotations({ description: `Last day shown (default: today)${boundNote}` })
}).pipe(Schema.filter((params) => {
  const from = params["filters[from]"]
  const to = params["filters[to]"]
  const problem = from === undefined || to === undefined || from > to ? undefined : trainingLoadRangeProblem(from, to)
  return problem === undefined || { path: ["filters[from]"], message: problem }
}))
export type TrainingLoadParams = typeof TrainingLoadParams.Type
