import * as v8 from "node:v8"

/**
 * How far V8 lets an old generation grow past what survived its last full collection, for the
 * whole process (the flag is read at each collection, by the daemon's isolate and the parse
 * workers' alike). A process may keep it low (leanHeap: an idle daemon holds little garbage);
 * while files are parsed it is raised: a parse keeps its records, samples and streams alive at
 * once, and a heap let grow by 15 % at a time collected a 2 MB FIT a dozen times over.
 */
const WHILE_PARSING_PERCENT = 100

/** 0 is V8's own factor (from the heap's limit and the collector's speed). */
let restingPercent = 0
let parses = 0

/** The percent in effect now (what was last given to V8). */
export const oldGenerationGrowth = () => (parses > 0 ? WHILE_PARSING_PERCENT : restingPercent)

const apply = () => v8.setFlagsFromString(`--heap-growing-percent=${oldGenerationGrowth()}`)

/** The growth of the process's old generations while no file is being parsed. */
export const oldGenerationGrowsBy = (percent: number) => {
  restingPercent = percent
  apply()
}

/** A parse begins: the old generations may grow faster until the last parse in flight ends. */
export const parseBegins = () => {
  if (parses++ === 0) apply()
}

export const parseEnds = () => {
  if (--parses === 0) apply()
}
