import * as path from "node:path"
import { loadManifest, readCorpusFile } from "../support/corpus.ts"

/**
 * Seeded mutations of real FIT, TCX and GPX files, for the fuzz test of the suite and
 * `npm run fuzz`: bit flips, overwritten bytes, truncations, splices of two files, absurd
 * numbers, absurd dates, inflated sizes (repeated elements, huge attributes and texts,
 * chained FIT segments, lying FIT headers) and deep nesting. The same seed gives the same
 * files, so that a failure can be replayed.
 */

export type Format = "fit" | "tcx" | "gpx"

export interface SourceFile {
  /** path under the corpus, for the report */
  readonly file: string
  readonly format: Format
  readonly bytes: Uint8Array
}

export interface MutatedFile {
  /** unique, with the format's extension */
  readonly name: string
  readonly format: Format
  readonly source: string
  /** the mutations applied, in order */
  readonly mutations: ReadonlyArray<string>
  readonly bytes: Uint8Array
}

export interface MutationOptions {
  /** the largest file a size mutation may make (default 12 MB) */
  readonly maxBytes?: number
}

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
export const seededRandom = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (below: number): number => Math.floor(next() * below),
    pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
  }
}
type Random = ReturnType<typeof seededRandom>

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("latin1")
const fromLatin1 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "latin1"))

const ABSURD_NUMBERS = [
  "1.7976931348623157e308", "-1.7976931348623157e308", "Infinity", "-Infinity", "NaN", "1e999", "-1e999", "4294967295",
  "9007199254740993", "1e-320", "-0", "0", "123456789012", "0x7fffffff", "1,5", ""
]
const hugeDigits = (random: Random) => "9".repeat(random.pick([400, 20_000, 200_000, 1_000_000]))
const ABSURD_YEARS = ["1000", "0001", "0000", "1969", "1979", "2126", "9999", "275760", "-0001", "20000"]

// ---------------------------------------------------------------------------------------
// byte-level mutations, any format

const flipBits = (bytes: Uint8Array, random: Random): Uint8Array => {
  const out = bytes.slice()
  const n = 1 + random.int(16)
  for (let i = 0; i < n && out.length > 0; i++) out[random.int(out.length)]! ^= 1 << random.int(8)
  return out
}

const overwriteBytes = (bytes: Uint8Array, random: Random): Uint8Array => {
  const out = bytes.slice()
  const n = 1 + random.int(8)
  for (let i = 0; i < n && out.length > 0; i++) out[random.int(out.length)] = random.pick([0, 0xff, 0x7f, 0x80, random.int(256)])
  return out
}

const truncate = (bytes: Uint8Array, random: Random): Uint8Array => bytes.subarray(0, random.int(bytes.length))

const splice = (bytes: Uint8Array, other: Uint8Array, random: Random): Uint8Array => {
  const head = bytes.subarray(0, random.int(bytes.length + 1))
  const tail = other.subarray(random.int(other.length + 1))
  const out = new Uint8Array(head.length + tail.length)
  out.set(head)
  out.set(tail, head.length)
  return out
}

// ---------------------------------------------------------------------------------------
// FIT

/** The FIT header size (12 or 14) when the file starts like one, else 12. */
const fitHeaderSize = (bytes: Uint8Array): number => (bytes[0] === 14 ? 14 : 12)

/** Overwrites 1 to 6 little-endian words of the data with extreme values (sint32, uint32, timestamps). */
const fitNumbers = (bytes: Uint8Array, random: Random, values: ReadonlyArray<number>): Uint8Array => {
  const out = bytes.slice()
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength)
  const start = fitHeaderSize(bytes)
  const n = 1 + random.int(6)
  for (let i = 0; i < n && out.length > start + 4; i++) {
    view.setUint32(start + random.int(out.length - start - 4), random.pick(values) >>> 0, true)
  }
  return out
}

const FIT_NUMBERS = [0xffffffff, 0x7fffffff, 0x80000000, 0, 0xfffffffe, 0x7ffffffe]
/** FIT timestamps count seconds from 1989-12-31: 0, before 1998 (device power-on), and the year 2126 */
const FIT_TIMES = [0, 1, 0x0fffffff, 0x10000000, 0xf0000000, 4_400_000_000 >>> 0]

/** The file repeated as chained FIT segments (a FIT file may hold several), up to `maxBytes`. */
const fitChain = (bytes: Uint8Array, random: Random, maxBytes: number): Uint8Array => {
  const times = Math.max(2, Math.min(1 + random.int(200), Math.floor(maxBytes / Math.max(1, bytes.length))))
  const out = new Uint8Array(bytes.length * times)
  for (let i = 0; i < times; i++) out.set(bytes, i * bytes.length)
  return out
}

/** A header that claims far more (or less) data than the file holds. */
const fitLyingHeader = (bytes: Uint8Array, random: Random): Uint8Array => {
  const out = bytes.slice()
  if (out.length < 12) return out
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(4, random.pick([0xffffffff, 0x7fffffff, 0, 1, out.length * 10]), true)
  return out
}

// ---------------------------------------------------------------------------------------
// XML (TCX, GPX)

const NUMBER_TOKEN = /(?<=[>"])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?=[<"])/g
const ISO_YEAR = /(?<=[>"])\d{4}(?=-\d{2}-\d{2}T)/g

/** Replaces `count` of the matches of `pattern` (chosen at random) with `replacement()`. */
const replaceSome = (text: string, pattern: RegExp, count: number, random: Random, replacement: () => string): string => {
  const matches = [...text.matchAll(pattern)]
  if (matches.length === 0) return text
  const chosen = new Set(Array.from({ length: count }, () => random.int(matches.length)))
  let out = ""
  let last = 0
  for (const [i, m] of matches.entries()) {
    if (!chosen.has(i)) continue
    out += text.slice(last, m.index) + replacement()
    last = m.index! + m[0].length
  }
  return out + text.slice(last)
}

const xmlNumbers = (text: string, random: Random): string =>
  replaceSome(text, NUMBER_TOKEN, 1 + random.int(5), random, () => (random.next() < 0.15 ? hugeDigits(random) : random.pick(ABSURD_NUMBERS)))

const xmlDates = (text: string, random: Random): string => {
  if (random.next() < 0.3) {
    // every date shifted the same way: a whole activity in another millennium
    const year = random.pick(ABSURD_YEARS)
    return text.replace(ISO_YEAR, year)
  }
  return replaceSome(text, ISO_YEAR, 1 + random.int(3), random, () => random.pick(ABSURD_YEARS))
}

/** One element (a track point, a lap...) repeated until the file nears `target` bytes. */
const xmlRepeat = (text: string, random: Random, maxBytes: number): string => {
  const tag = random.pick(["trkpt", "Trackpoint", "Lap", "trkseg", "Track", "extensions", "wpt"])
  const start = text.indexOf(`<${tag}`)
  const end = start === -1 ? -1 : text.indexOf(`</${tag}>`, start)
  if (end === -1) return text
  const element = text.slice(start, end + tag.length + 3)
  const target = Math.min(maxBytes, text.length + random.pick([100_000, 1_000_000, 8_000_000, 40_000_000]))
  const times = Math.max(1, Math.floor((target - text.length) / element.length))
  return text.slice(0, start) + element.repeat(times) + text.slice(start)
}

/** A huge attribute or text at a random tag. */
const xmlHugeValue = (text: string, random: Random, maxBytes: number): string => {
  const size = Math.min(maxBytes, random.pick([70_000, 1_000_000, 5_000_000]))
  const lt = text.indexOf("<", random.int(text.length))
  if (lt === -1 || text[lt + 1] === "/" || text[lt + 1] === "?" || text[lt + 1] === "!") return text
  const nameEnd = lt + 1 + (/^[\w:.-]+/.exec(text.slice(lt + 1, lt + 100))?.[0].length ?? 0)
  const gt = text.indexOf(">", nameEnd)
  if (gt === -1) return text
  return random.next() < 0.5
    ? `${text.slice(0, nameEnd)} huge="${"a".repeat(size)}"${text.slice(nameEnd)}`
    : `${text.slice(0, gt + 1)}${"1".repeat(size)}${text.slice(gt + 1)}`
}

/** An element wrapped in nested elements, as deep as the XML limit or far beyond it. */
const xmlNesting = (text: string, random: Random, maxBytes: number): string => {
  const depth = Math.min(Math.floor(maxBytes / 8), random.pick([90, 101, 1_000, 100_000]))
  const at = text.indexOf("<", text.indexOf("<", 1) + 1)
  if (at === -1) return text
  return text.slice(0, at) + "<n>".repeat(depth) + "</n>".repeat(depth) + text.slice(at)
}

// ---------------------------------------------------------------------------------------

const MUTATIONS = ["flip", "bytes", "truncate", "splice", "numbers", "dates", "size", "huge-value", "nesting"] as const

const mutateOnce = (
  kind: (typeof MUTATIONS)[number],
  bytes: Uint8Array,
  format: Format,
  other: Uint8Array,
  random: Random,
  maxBytes: number
): Uint8Array => {
  switch (kind) {
    case "flip":
      return flipBits(bytes, random)
    case "bytes":
      return overwriteBytes(bytes, random)
    case "truncate":
      return truncate(bytes, random)
    case "splice":
      return splice(bytes, other, random)
    default:
      break
  }
  if (format === "fit") {
    switch (kind) {
      case "numbers":
        return fitNumbers(bytes, random, FIT_NUMBERS)
      case "dates":
        return fitNumbers(bytes, random, FIT_TIMES)
      case "size":
        return fitChain(bytes, random, maxBytes)
      case "huge-value":
        return fitLyingHeader(bytes, random)
      case "nesting":
        return fitChain(bytes, random, Math.min(maxBytes, 64 * bytes.length))
    }
  }
  const text = latin1(bytes)
  switch (kind) {
    case "numbers":
      return fromLatin1(xmlNumbers(text, random))
    case "dates":
      return fromLatin1(xmlDates(text, random))
    case "size":
      return fromLatin1(xmlRepeat(text, random, maxBytes))
    case "huge-value":
      return fromLatin1(xmlHugeValue(text, random, maxBytes))
    case "nesting":
      return fromLatin1(xmlNesting(text, random, maxBytes))
  }
}

/**
 * `count` mutated files from `sources` (one to three mutations each, the same for the same
 * seed), made one at a time so that a long run never holds them all.
 */
export function* mutatedFiles(sources: ReadonlyArray<SourceFile>, count: number, seed: number, options: MutationOptions = {}): Generator<MutatedFile> {
  const maxBytes = options.maxBytes ?? 12 * 1024 * 1024
  const random = seededRandom(seed)
  const byFormat = new Map<Format, Array<SourceFile>>()
  for (const s of sources) byFormat.set(s.format, [...(byFormat.get(s.format) ?? []), s])
  for (let i = 0; i < count; i++) {
    const source = random.pick(sources)
    const others = byFormat.get(source.format)!
    const mutations: Array<string> = []
    let bytes = source.bytes
    const n = 1 + (random.next() < 0.3 ? 1 + random.int(2) : 0)
    for (let k = 0; k < n; k++) {
      const kind = random.pick(MUTATIONS)
      mutations.push(kind)
      bytes = mutateOnce(kind, bytes, source.format, random.pick(others).bytes, random, maxBytes)
      if (bytes.length > maxBytes) bytes = bytes.subarray(0, maxBytes)
    }
    const base = path.basename(source.file).replace(/\.[^.]+$/, "").slice(0, 60)
    yield {
      name: `fuzz-${String(i).padStart(5, "0")}-${mutations.join("+")}-${base}.${source.format}`,
      format: source.format,
      source: source.file,
      mutations,
      bytes
    }
  }
}

/** The corpus files of `fit/`, `tcx/`, `gpx/` and `bad/` in those formats, up to `maxBytes` each. */
export const corpusSources = (maxBytes = Infinity): Array<SourceFile> =>
  loadManifest()
    .filter((e) => /^(fit|tcx|gpx|bad)\//.test(e.file) && /\.(fit|tcx|gpx)$/i.test(e.file))
    .map((e) => ({ file: e.file, format: e.file.split(".").pop()!.toLowerCase() as Format, bytes: new Uint8Array(readCorpusFile(e.file)) }))
    .filter((s) => s.bytes.length <= maxBytes)
