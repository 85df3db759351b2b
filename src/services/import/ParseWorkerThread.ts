import * as fs from "node:fs"
import * as os from "node:os"
import { parentPort } from "node:worker_threads"
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
}

export type ParseResponse =
  | { readonly id: number; readonly drafts: ReadonlyArray<EncodedActivityDraft> }
  | { readonly id: number; readonly error: string }

/**
 * Linux's nice value of this thread: parsing yields to the daemon's event loop, so that when
 * every core is busy (a bulk import on a small machine) the API's requests and the commits are
 * served first and the parse takes what is left, as fast as before on an idle core. Nice is per
 * thread on Linux (this thread's id is the last part of /proc/thread-self); elsewhere, or where
 * it is not allowed, the thread keeps the process's priority.
 */
const PARSE_NICE = 10

/** This thread's id in the system (Linux), by which the daemon reads the processor time it spends; null elsewhere. */
const threadId = (): number | null => {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop())
    return Number.isSafeInteger(tid) && tid > 0 ? tid : null
  } catch {
    return null
  }
}

const lowerPriority = (tid: number | null) => {
  if (tid === null) return // not Linux: the thread runs at the process's priority
  try {
    os.setPriority(tid, Math.max(os.getPriority(tid), PARSE_NICE))
  } catch {
    // not allowed: the thread runs at the process's priority
  }
}

const tid = threadId()
lowerPriority(tid)
const port = parentPort!

port.on("message", async (request: ParseRequest) => {
  let response: ParseResponse
  try {
    response = { id: request.id, drafts: await fileDrafts(request) }
  } catch (error) {
    const message = error instanceof ActivityFileError
      ? error.message
      : `"${request.filename}" could not be imported: ${error instanceof Error ? error.message : String(error)}`
    // a message may quote the file (a name, a number of a million digits): it is stored and served
    response = { id: request.id, error: truncateText(message, MAX_IMPORT_MESSAGE_LENGTH) }
  }
  port.postMessage(response, "drafts" in response ? response.drafts.map((d) => d.encodedStreams.buffer as ArrayBuffer) : [])
})
port.postMessage({ ready: true, tid })
