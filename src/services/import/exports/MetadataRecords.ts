import type { ParsedTokenInfo, TokenParser } from "@streamparser/json"
import { pipeline } from "node:stream/promises"
import { setImmediate as nextTurn } from "node:timers/promises"

/**
 * The records of an export's metadata files (a CSV's rows, the objects of a JSON list), read as
 * a stream by well-kept parsers (csv-parse, @streamparser/json) within the archive's limits:
 * every byte of every metadata file of an archive is counted as it arrives, against a bound per
 * file and one for the archive, and so is every record; no record (a CSV row, a JSON object of
 * the list, any one value) may be larger than a bound of its own. Past a bound the archive is
 * refused (MetadataOverLimit names the file); a file that is no CSV or JSON says nothing (the
 * activity files are imported without it). The bytes are parsed in slices of at most SLICE
 * bytes, each in a turn of the event loop of its own, so that requests are answered meanwhile.
 */

/** The bounds of an archive's metadata (the settings of the same names in AppConfig). */
export interface MetadataLimits {
  /** bytes of one metadata file (EXPORT_METADATA_MAX_FILESIZE) */
  readonly fileBytes: number
  /** bytes of all the metadata files of an archive (EXPORT_METADATA_MAX_SIZE) */
  readonly totalBytes: number
  /** bytes of one record: a CSV row, a JSON object of the list, any one value (EXPORT_METADATA_MAX_RECORD_SIZE) */
  readonly recordBytes: number
  /** records of all the metadata files of an archive (EXPORT_METADATA_MAX_RECORDS) */
  readonly records: number
}

/** How a metadata file is read. */
export type MetadataFormat =
  /** rows by the header's column names (the first column of a name; only `columns` when given) */
  | { readonly kind: "csv"; readonly columns?: ReadonlyArray<string> }
  /**
   * the objects of the top list; when its first object's first member is `unwrap` (a list),
   * the objects of that member of each object of the top list instead
   */
  | { readonly kind: "json"; readonly unwrap?: string }
  /**
   * the objects at `paths` of a document that is a list (`$.*.gearDTOS.*`, JSONPath as
   * @streamparser/json reads it), each as a JsonFound: for files holding lists of several
   * kinds, or lists inside maps, whose records say where they lie
   */
  | { readonly kind: "jsonPaths"; readonly paths: ReadonlyArray<string> }

/** A record of a `jsonPaths` file: the object, and the keys leading to it from the top list (`[0, "gearDTOS", 3]`). */
export interface JsonFound {
  readonly at: ReadonlyArray<string | number>
  readonly value: Readonly<Record<string, unknown>>
}

/** One record: values by column or member name. */
export type MetadataRecord = Readonly<Record<string, unknown>>

/** The records of each metadata file of an archive, by its entry; a file not read or damaged has none. */
export type MetadataRecords = ReadonlyMap<string, ReadonlyArray<MetadataRecord>>

/** A metadata file past one of the limits: the archive is refused, naming it. */
export class MetadataOverLimit extends Error {}

/** Bytes parsed in one turn of the event loop. */
export const SLICE = 64 * 1024

const sizeText = (bytes: number): string =>
  bytes >= 1024 ** 2 && bytes % 1024 ** 2 === 0 ? `${bytes / 1024 ** 2} MB` : bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`

/** What an archive's metadata has used of its limits so far: one per archive, shared by its files. */
export class MetadataBudget {
  #bytes = 0
  #records = 0
  constructor(readonly limits: MetadataLimits) {}

  /** Counts `bytes` more of the file `entry`, of which `fileBytes` so far. */
  countBytes(entry: string, fileBytes: number, bytes: number): void {
    this.#bytes += bytes
    if (fileBytes > this.limits.fileBytes) {
      throw new MetadataOverLimit(`its metadata file "${entry}" is larger than ${sizeText(this.limits.fileBytes)} (EXPORT_METADATA_MAX_FILESIZE)`)
    }
    if (this.#bytes > this.limits.totalBytes) {
      throw new MetadataOverLimit(
        `its metadata files are larger than ${sizeText(this.limits.totalBytes)} together (EXPORT_METADATA_MAX_SIZE), past it at "${entry}"`
      )
    }
  }

  /** Counts one record more of the file `entry`. */
  countRecord(entry: string): void {
    if (++this.#records > this.limits.records) {
      throw new MetadataOverLimit(`its metadata files hold more than ${this.limits.records} records (EXPORT_METADATA_MAX_RECORDS), past it at "${entry}"`)
    }
  }

  recordTooLarge(entry: string): MetadataOverLimit {
    return new MetadataOverLimit(`its metadata file "${entry}" has a record larger than ${sizeText(this.limits.recordBytes)} (EXPORT_METADATA_MAX_RECORD_SIZE)`)
  }
}

/**
 * The bytes of `source` in slices of at most SLICE bytes, counted against `budget` as they
 * arrive, each slice handed on in a turn of the event loop of its own.
 */
async function* sliced(source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, entry: string, budget: MetadataBudget): AsyncGenerator<Buffer> {
  let fileBytes = 0
  for await (const chunk of source) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    for (let at = 0; at < bytes.length; at += SLICE) {
      const slice = bytes.subarray(at, at + SLICE)
      fileBytes += slice.length
      budget.countBytes(entry, fileBytes, slice.length)
      yield slice
      await nextTurn()
    }
  }
}

/**
 * The records of the metadata file `entry`, its bytes streamed from `source`. Fails with
 * MetadataOverLimit past a limit (`budget`, shared by the files of the archive); a file that
 * is not of its format has no records.
 */
/** The parsers, loaded with the first metadata file read: a daemon never given an archive does without them. */
let loaded: Promise<readonly [typeof import("csv-parse"), typeof import("@streamparser/json")]> | undefined
const parsers = () => (loaded ??= Promise.all([import("csv-parse"), import("@streamparser/json")] as const))

export const readMetadataRecords = async (
  entry: string,
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  format: MetadataFormat,
  budget: MetadataBudget
): Promise<Array<MetadataRecord>> => {
  const records: Array<MetadataRecord> = []
  const [csv, json] = await parsers()
  const { CsvError } = csv
  try {
    if (format.kind === "csv") await readCsv(csv, entry, sliced(source, entry, budget), format.columns, budget, records)
    else await readJson(json, entry, sliced(source, entry, budget), format, budget, records)
  } catch (e) {
    if (e instanceof MetadataOverLimit) throw e
    if (e instanceof CsvError && e.code === "CSV_MAX_RECORD_SIZE") throw budget.recordTooLarge(entry)
    // the source's own trouble (a damaged zip entry, a file gone unreadable) is the caller's to tell
    if (!(e instanceof CsvError) && !(e instanceof JsonDamaged)) throw e
    // damaged: says nothing
    return []
  }
  return records
}

const readCsv = (csv: typeof import("csv-parse"), entry: string, slices: AsyncIterable<Buffer>, wanted: ReadonlyArray<string> | undefined, budget: MetadataBudget, records: Array<MetadataRecord>) => {
  const keep = wanted === undefined ? null : new Set(wanted)
  return pipeline(
    slices,
    csv.parse({
      bom: true,
      // the first column of a name is read, and only those wanted: the others are never kept
      columns: (header: Array<string>) => {
        const seen = new Set<string>()
        return header.map((raw) => {
          const name = raw.trim()
          const taken = seen.has(name) || (keep !== null && !keep.has(name))
          seen.add(name)
          return taken ? false : name
        })
      },
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // any line break ends a row, whichever the first row ended with
      record_delimiter: ["\r\n", "\n", "\r"],
      max_record_size: budget.limits.recordBytes
    }),
    async (rows: AsyncIterable<MetadataRecord>) => {
      for await (const row of rows) {
        budget.countRecord(entry)
        records.push(row)
      }
    }
  )
}

/** The JSON is not JSON (or not a list): it says nothing. */
class JsonDamaged extends Error {}

/**
 * The records of a JSON list (see MetadataFormat). The tokens of each value are measured as
 * they arrive, an unfinished string or number too (partial tokens, at the end of each slice),
 * and so is the record being built since the last one handed over; a record handed over is
 * dropped from the parser's own structure (keepStack: false), so only the current one is held.
 */
const readJson = async (
  { Tokenizer, TokenParser, TokenType }: typeof import("@streamparser/json"),
  entry: string,
  slices: AsyncIterable<Buffer>,
  format: Extract<MetadataFormat, { readonly kind: "json" | "jsonPaths" }>,
  budget: MetadataBudget,
  records: Array<MetadataRecord>
) => {
  const unwrap = format.kind === "json" ? format.unwrap : undefined
  const limit = budget.limits.recordBytes
  const tokenizer = new Tokenizer({ emitPartialTokens: true })
  let parser: TokenParser | null = null
  // the first tokens, until they tell whether the list is wrapped: `[ { "<unwrap>" :`
  const first: Array<ParsedTokenInfo> = []
  let pending = 0
  let failure: Error | null = null

  const start = (wrapped: boolean) => {
    const paths = format.kind === "jsonPaths" ? [...format.paths] : [wrapped ? `$.*.${unwrap}.*` : "$.*"]
    const started = new TokenParser({ paths, keepStack: false })
    started.onValue = ({ key, stack, value }) => {
      pending = 0
      if (typeof value !== "object" || value === null || Array.isArray(value)) return
      budget.countRecord(entry)
      const record = value as MetadataRecord
      records.push(format.kind === "json" ? record : { at: [...stack.slice(1).map((s) => s.key!), key!], value: record } satisfies JsonFound)
    }
    started.onError = (error) => {
      failure ??= error instanceof MetadataOverLimit ? error : new JsonDamaged(error.message)
    }
    return started
  }
  // bytes handed to the tokenizer so far: an unfinished token's size is measured from its offset
  let written = 0
  // kept as well as thrown: the tokenizer swallows what is thrown on an unfinished number
  const tooLarge = () => {
    failure ??= budget.recordTooLarge(entry)
    throw failure
  }
  tokenizer.onToken = (token) => {
    if (token.partial === true) {
      if (written - token.offset > limit) tooLarge()
      return
    }
    // a finished number is a number, whatever it was written as; a string is held as it is
    const size = typeof token.value === "string" ? token.value.length : 8
    pending += size
    if (size > limit || pending > limit) tooLarge()
    if (parser !== null) return parser.write(token)
    // a document that is no list holds no records
    if (first.length === 0 && token.token !== TokenType.LEFT_BRACKET) throw new JsonDamaged("not a JSON list")
    first.push(token)
    const types = first.map((t) => t.token)
    const decided = format.kind === "jsonPaths" || types.length >= 4 || (types.length >= 2 && types[1] !== TokenType.LEFT_BRACE) || (types.length >= 3 && first[2]!.value !== unwrap)
    if (!decided) return
    parser = start(unwrap !== undefined && types.length === 4 && types[3] === TokenType.COLON && first[2]!.value === unwrap)
    for (const t of first.splice(0)) parser.write(t)
  }
  tokenizer.onError = (error) => {
    failure ??= error instanceof MetadataOverLimit ? error : new JsonDamaged(error.message)
  }
  for await (const slice of slices) {
    written += slice.length
    tokenizer.write(slice)
    if (failure !== null) throw failure
  }
  if (!tokenizer.isEnded) tokenizer.end()
  if (failure !== null) throw failure
  // too short to be a list, or a list never closed
  if (parser === null || !(parser as TokenParser).isEnded) throw new JsonDamaged("not a whole JSON list")
}
