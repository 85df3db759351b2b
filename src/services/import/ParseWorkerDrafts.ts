import { FitBaseType, FitEncoder } from "fit-file-parser"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import type { FileFormat } from "../../schema/ParsedActivity.ts"
import type { SportType } from "../../schema/SportType.ts"
import { encodeDraft } from "../activities/StreamsCodec.ts"
import { trainingBasisOf } from "../training/TrainingBasis.ts"
import { formatNumber, validateActivity } from "../activities/validateActivity.ts"
import { computeActivity, impossibleActivity } from "./ActivityMetrics.ts"
import { ActivityFileError } from "./parsers/ActivityFileError.ts"
import { parseActivityFile } from "./parsers/parseActivityFile.ts"
import { sportWords } from "./parsers/sportNames.ts"

/** What the parse worker thread is asked to turn into activities. */
export interface DraftsRequest {
  readonly bytes: Uint8Array
  readonly format: FileFormat
  readonly filename: string
  readonly fallbackTimeZone: string
  /** the sport the athlete chose for the file (a Strava export's activities.csv), or for its activity starting nearest `sportAt` (epoch ms) */
  readonly sportType?: SportType | undefined
  readonly sportAt?: number | undefined
}

/**
 * The file's activities, computed, checked (validateActivity) and their streams encoded: the
 * work of the parse worker thread, plain code without the Effect runtime. An activity of a
 * multisport file that is impossible (a run dated in the future by a clock error) is left out
 * and named in the repairs of the first one kept, so that the others are imported; the file is
 * refused only when none remains.
 */
export const fileDrafts = async (request: DraftsRequest): Promise<ReadonlyArray<EncodedActivityDraft>> => {
  const { filename } = request
  const parsed = await parseActivityFile(request.bytes, request.format, filename, request.sportType, request.sportAt)
  const kept: Array<ReturnType<typeof computeActivity>> = []
  const dropped: Array<string> = []
  let firstError: ActivityFileError | null = null
  const importedAt = Date.now()
  for (const [i, activity] of parsed.entries()) {
    try {
      const computed = computeActivity(activity, { filename, fallbackTimeZone: request.fallbackTimeZone, importedAt })
      const checked = validateActivity(computed)
      if (checked._tag === "Impossible") throw impossibleActivity(filename, checked.reason)
      // from every sample: a long recording's streams are thinned for storage
      kept.push({ ...checked.draft, training: trainingBasisOf(computed.streams) })
    } catch (error) {
      if (!(error instanceof ActivityFileError)) throw error
      firstError ??= error
      const which = `activity ${formatNumber(i + 1)} of ${formatNumber(parsed.length)} (${sportWords(activity.sportType)})`
      dropped.push(`dropped ${which}, which is impossible: ${error.reason ?? error.message}`)
    }
  }
  if (kept.length === 0) throw firstError!
  const [first, ...others] = kept
  const drafts = dropped.length === 0 ? kept : [{ ...first!, repairs: [...(first!.repairs ?? []), ...dropped] }, ...others]
  return drafts.map(encodeDraft)
}

/**
 * A ride of `WARM_UP_SECONDS` recorded every second near Zurich, with power, cadence and heart
 * rate, as a device writes it in FIT: what `warmUp` computes.
 */
const WARM_UP_SECONDS = 1800
const warmUpFit = (): Uint8Array => {
  const start = FitEncoder.toFitTimestamp(new Date(Date.UTC(2020, 5, 1, 8)))
  const u32 = (number: number, value: number) => ({ number, size: 4, baseType: FitBaseType.Uint32, value })
  const fit = new FitEncoder()
  fit.writeMessage(0, [
    { number: 0, size: 1, baseType: FitBaseType.Enum, value: 4 },
    { number: 1, size: 2, baseType: FitBaseType.Uint16, value: 1 },
    { number: 2, size: 2, baseType: FitBaseType.Uint16, value: 3121 },
    u32(4, start)
  ])
  for (let s = 0; s <= WARM_UP_SECONDS; s++) {
    const metres = s * 8
    fit.writeMessage(20, [
      u32(253, start + s),
      { number: 0, size: 4, baseType: FitBaseType.Sint32, value: Math.round(((47.37 + metres / 111_195) * 2 ** 31) / 180) },
      { number: 1, size: 4, baseType: FitBaseType.Sint32, value: Math.round((8.54 * 2 ** 31) / 180) },
      { number: 2, size: 2, baseType: FitBaseType.Uint16, value: Math.round((400 + 10 * Math.sin(s / 300) + 500) * 5) },
      { number: 3, size: 1, baseType: FitBaseType.Uint8, value: 120 + (s % 30) },
      { number: 4, size: 1, baseType: FitBaseType.Uint8, value: 85 + (s % 10) },
      u32(5, metres * 100),
      { number: 6, size: 2, baseType: FitBaseType.Uint16, value: 8000 },
      { number: 7, size: 2, baseType: FitBaseType.Uint16, value: 180 + (s % 60) }
    ], 1)
  }
  const end = start + WARM_UP_SECONDS
  const totals = [u32(253, end), u32(2, start), u32(7, WARM_UP_SECONDS * 1000), u32(8, WARM_UP_SECONDS * 1000), u32(9, WARM_UP_SECONDS * 800)]
  fit.writeMessage(19, totals, 2)
  fit.writeMessage(18, [...totals, { number: 5, size: 1, baseType: FitBaseType.Enum, value: 2 }], 3)
  fit.writeMessage(34, [u32(253, end), { number: 1, size: 2, baseType: FitBaseType.Uint16, value: 1 }, u32(5, end + 7200)], 4)
  return fit.close()
}

/**
 * Makes a fresh thread ready for its first file before it comes: the first activity a thread
 * computes loads the time zones, the country borders and the cities, and runs the FIT decoder's
 * and every metric's code unoptimised (together seconds of a loaded machine's time). A worker
 * replaced after idling would otherwise pay that on the file a person waits for (a sport changed
 * by hand).
 */
export const warmUp = async (): Promise<void> => {
  await fileDrafts({ bytes: warmUpFit(), format: "fit", filename: "warm-up.fit", fallbackTimeZone: "UTC" })
}
