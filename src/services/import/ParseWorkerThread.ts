import { parentPort } from "node:worker_threads"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import type { FileFormat } from "../../schema/ParsedActivity.ts"
import { computeActivity, impossibleActivityMessage } from "./ActivityMetrics.ts"
import { ActivityFileError, parseActivityFile } from "./parsers/parseActivityFile.ts"
import { encodeDraft } from "../activities/StreamsCodec.ts"
import { validateActivity } from "../activities/validateActivity.ts"
import { MAX_IMPORT_MESSAGE_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"

/**
 * The worker thread of ParseWorker: parses a file, computes its activities, checks them
 * (validateActivity) and encodes their streams off the daemon's event loop. One request at a time; answers `{id, drafts}` (the
 * encoded streams transferred, not copied) or `{id, error}`.
 */
export interface ParseRequest {
  readonly id: number
  readonly bytes: Uint8Array
  readonly format: FileFormat
  readonly filename: string
  readonly fallbackTimeZone: string
}

export type ParseResponse =
  | { readonly id: number; readonly drafts: ReadonlyArray<EncodedActivityDraft> }
  | { readonly id: number; readonly error: string }

const port = parentPort!

port.on("message", async (request: ParseRequest) => {
  let response: ParseResponse
  try {
    const parsed = await parseActivityFile(request.bytes, request.format, request.filename)
    const drafts = parsed.map((activity) => {
      const checked = validateActivity(computeActivity(activity, { filename: request.filename, fallbackTimeZone: request.fallbackTimeZone }))
      if (checked._tag === "Impossible") throw new ActivityFileError({ message: impossibleActivityMessage(request.filename, checked.reason) })
      return encodeDraft(checked.draft)
    })
    response = { id: request.id, drafts }
  } catch (error) {
    const message = error instanceof ActivityFileError
      ? error.message
      : `"${request.filename}" could not be imported: ${error instanceof Error ? error.message : String(error)}`
    // a message may quote the file (a name, a number of a million digits): it is stored and served
    response = { id: request.id, error: truncateText(message, MAX_IMPORT_MESSAGE_LENGTH) }
  }
  port.postMessage(response, "drafts" in response ? response.drafts.map((d) => d.encodedStreams.buffer as ArrayBuffer) : [])
})
port.postMessage({ ready: true })
