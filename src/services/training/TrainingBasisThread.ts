import { parentPort } from "node:worker_threads"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"
import { lowerThreadPriority } from "../platform/ThreadPriority.ts"
import { storedTrainingBasis } from "./storedTrainingBasis.ts"

/**
 * The worker thread of TrainingBasisWorker: the training basis of an activity from its stored
 * streams (inflated, parsed, analysed) off the daemon's event loop. One request at a time.
 */
export interface BasisRequest {
  readonly id: number
  readonly data: Uint8Array | null
}

export interface BasisResponse {
  readonly id: number
  readonly basis: TrainingBasis
}

/** Analysing yields to the daemon's event loop (see lowerThreadPriority). */
const ANALYSIS_NICE = 10

lowerThreadPriority(ANALYSIS_NICE)
const port = parentPort!
port.on("message", (request: BasisRequest) => {
  port.postMessage({ id: request.id, basis: storedTrainingBasis(request.data) } satisfies BasisResponse)
})
