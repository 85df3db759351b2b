import * as fs from "node:fs"
import * as path from "node:path"

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
