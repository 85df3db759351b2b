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
