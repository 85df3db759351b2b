import * as fs from "node:fs"
import * as path from "node:path"
import { CORPUS_DIR } from "./corpus.ts"
import { corpusSource, type SourceActivity, type SourceFile } from "./exportArchives.ts"
import { shiftFitTimes } from "./shiftFitTimes.ts"

/**
 * A lifetime of activities made from the corpus's FIT files: copy after copy of them, each
 * moved in time to a start of its own (shiftFitTimes), so that no two are duplicates for the
 * import (whose rule needs two starts within 60 s) and no two files have the same bytes. The
 * copies follow each other SPACING apart from FROM (2014), and a file of several activities
 * (a triathlon) keeps its legs' spacing, the next copy starting after its last leg: 5,000
 * activities span about nine years, ending years before today.
 */

export const LIFETIME_FROM = Date.UTC(2014, 0, 1)
/** between the starts of two copies: 16 h, a multiple of 32 s as every shift must be */
export const LIFETIME_SPACING_S = 16 * 3600
/** at least this after the last start of the copy before (a multiple of 32 s, well beyond the duplicate rule's 60 s) */
const GAP_S = 256

/** The corpus's FIT files that the import reads as activities (those it refuses are left out), by name. */
export const lifetimeSources = async (): Promise<Array<SourceFile>> => {
  const files = fs.readdirSync(path.join(CORPUS_DIR!, "fit")).filter((f) => f.endsWith(".fit")).sort()
  const sources = await Promise.all(files.map((f) => corpusSource(`fit/${f}`).catch(() => null)))
  return sources.filter((s): s is SourceFile => s !== null)
}

/** One activity of the lifetime: its file, moved by `shiftSeconds`, and what the export says about it. */
export interface LifetimeActivity extends SourceActivity {
  readonly source: string
  readonly shiftSeconds: number
}

const toMultipleOf32 = (seconds: number) => Math.round(seconds / 32) * 32

/** `count` activities made from `sources` in turn, each file's bytes made as it is reached. */
export function* lifetimeActivities(sources: ReadonlyArray<SourceFile>, count: number): Generator<LifetimeActivity> {
  let slot = LIFETIME_FROM
  for (let k = 0; k < count; k++) {
    const source = sources[k % sources.length]!
    const shiftSeconds = toMultipleOf32((slot - source.starts[0]!) / 1000)
    const shift = shiftSeconds * 1000
    const starts = source.starts.map((s) => s + shift)
    yield {
      source: source.name,
      shiftSeconds,
      file: { name: `lifetime-${String(k + 1).padStart(5, "0")}.fit`, bytes: shiftFitTimes(source.bytes, shiftSeconds), starts, end: source.end + shift, sport: source.sport },
      name: `Lifetime ${k + 1}: ${source.name.replace(/\.fit$/, "")}`,
      sport: source.sport
    }
    slot = Math.max(slot + LIFETIME_SPACING_S * 1000, starts[starts.length - 1]! + GAP_S * 1000)
  }
}
