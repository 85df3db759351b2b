import * as fs from "node:fs"
import * as path from "node:path"
import type { EncodedActivityDraft } from "../../src/schema/ActivityDraft.ts"
import type { ParsedActivity } from "../../src/schema/ParsedActivity.ts"

/** The shared corpus of real activity files (never copied into this repository). */
export const CORPUS_DIR: string | undefined = process.env.ACTIVITY_CORPUS_DIR ??
  [path.resolve("shared/corpus"), path.resolve("../shared/corpus")].find((p) => fs.existsSync(path.join(p, "MANIFEST.tsv")))

export const CORPUS_MISSING_MESSAGE = "activity corpus not found (set ACTIVITY_CORPUS_DIR or place it at ../shared/corpus): corpus tests skipped"

export interface CorpusEntry {
  readonly file: string
  readonly format: "fit" | "tcx" | "gpx"
  readonly source_repo: string
  readonly source_path: string
  readonly license_of_source_repo: string
  readonly device_or_origin: string
  readonly sport: string
  readonly notes: string
  readonly expected: string
}

export const loadManifest = (): Array<CorpusEntry> => {
  if (!CORPUS_DIR) return []
  const [header, ...lines] = fs.readFileSync(path.join(CORPUS_DIR, "MANIFEST.tsv"), "utf8").trimEnd().split("\n")
  const cols = header!.split("\t")
  return lines.map((l) => Object.fromEntries(l.split("\t").map((v, i) => [cols[i], v])) as unknown as CorpusEntry)
}

export const corpusPath = (file: string): string => path.join(CORPUS_DIR!, file)
export const readCorpusFile = (file: string): Buffer => fs.readFileSync(corpusPath(file))

const formatOf = (file: string) => file.slice(file.lastIndexOf(".") + 1) as "fit" | "tcx" | "gpx"

/**
 * A turn of the event loop before each file: a parse awaits only promises, so that a test going
 * through the whole corpus would otherwise hold the loop for the whole of it, and vitest's own
 * messages to its worker (a minute at most) with it on a busy machine.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

// the parsers are loaded by the first test that asks for a parse, not by every file that reads the manifest
const parsers = () => import("../../src/services/import/parsers/parseActivityFile.ts")
const computation = () => import("../../src/services/import/ParseWorkerDrafts.ts")

const parsed = new Map<string, Promise<ReadonlyArray<ParsedActivity>>>()

/**
 * The activities the import's own parser reads from a file of the corpus (`fit/garmin-fenix5-run.fit`),
 * parsed once per process: the test files a worker runs one after another share them (a
 * triathlon's FIT takes 0.3 s, the ironman's 1.5 s each time). What a test builds from them
 * (starts, samples for a KML) only reads them; a file the parser refuses is refused every time.
 */
export const parsedCorpusFile = (file: string): Promise<ReadonlyArray<ParsedActivity>> => {
  let activities = parsed.get(file)
  if (activities === undefined) {
    activities = turn().then(parsers).then(({ parseActivityFile }) => parseActivityFile(new Uint8Array(readCorpusFile(file)), formatOf(file), path.basename(file)))
    parsed.set(file, activities)
  }
  return activities
}

const computed = new Map<string, Promise<ReadonlyArray<EncodedActivityDraft>>>()

/**
 * The activities of a file of the corpus as the parse worker computes them (fileDrafts, what its
 * thread runs, in UTC like the test daemons), computed once per process for the tests that only
 * read what a file yields (totals, laps, efforts): the test files a worker runs one after another
 * share them. The import through the worker itself is for the tests about it; a file the import
 * refuses is refused every time.
 */
export const corpusDrafts = (file: string): Promise<ReadonlyArray<EncodedActivityDraft>> => {
  let drafts = computed.get(file)
  if (drafts === undefined) {
    drafts = turn().then(computation).then(({ fileDrafts }) =>
      fileDrafts({ bytes: new Uint8Array(readCorpusFile(file)), format: formatOf(file), filename: path.basename(file), fallbackTimeZone: "UTC" })
    )
    computed.set(file, drafts)
  }
  return drafts
}
