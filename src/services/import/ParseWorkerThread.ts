import { parentPort } from "node:worker_threads"
import { currentThreadId, lowerThreadPriority, setThreadPriority } from "../platform/ThreadPriority.ts"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { MAX_IMPORT_MESSAGE_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"
import { ActivityFileError } from "./parsers/ActivityFileError.ts"
import { type DraftsRequest, fileDrafts } from "./ParseWorkerDrafts.ts"

/**
 * The worker thread of ParseWorker: parses a file, computes its activities, checks them and
 * encodes their streams off the daemon's event loop (fileDrafts). One request at a time;
 * answers `{id, drafts}` (the encoded streams transferred, not copied) or `{id, error}`.
 */
export interface ParseRequest extends DraftsRequest {
  readonly id: number
  /** a person waits for this file (a sport changed by hand): parsed at the daemon's own priority where the system allows it */
  readonly interactive?: boolean | undefined
}

export type ParseResponse =
  | { readonly id: number; readonly drafts: ReadonlyArray<EncodedActivityDraft> }
  | { readonly id: number; readonly error: string }

/** Parsing yields to the daemon's event loop (see lowerThreadPriority). */
const PARSE_NICE = 10

// the thread's id tells the daemon where to read the processor time it spends (its parse budget)
const tid = currentThreadId()
lowerThreadPriority(PARSE_NICE)
const port = parentPort!

port.on("message", async (request: ParseRequest) => {
  let response: ParseResponse
  // raising a thread's priority again takes a privilege (or RLIMIT_NICE): where it is refused
  // the file is parsed at the worker's priority like any other
  if (request.interactive === true) setThreadPriority(0)
  try {
    response = { id: request.id, drafts: await fileDrafts(request) }
  } catch (error) {
    const message = error instanceof ActivityFileError
      ? error.message
      : `"${request.filename}" could not be imported: ${error instanceof Error ? error.message : String(error)}`
    // a message may quote the file (a name, a number of a million digits): it is stored and served
    response = { id: request.id, error: truncateText(message, MAX_IMPORT_MESSAGE_LENGTH) }
  } finally {
    if (request.interactive === true) lowerThreadPriority(PARSE_NICE)
  }
  port.postMessage(response, "drafts" in response ? response.drafts.flatMap((d) => [d.encodedStreams.buffer as ArrayBuffer, ...(d.segmentTrack == null ? [] : [d.segmentTrack.buffer as ArrayBuffer])]) : [])
})
port.postMessage({ ready: true, tid })
