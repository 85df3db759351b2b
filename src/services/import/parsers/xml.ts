import { XMLParser, XMLValidator } from "fast-xml-parser"
import { ActivityFileError } from "./ActivityFileError.ts"

export type XmlNode = Record<string, unknown>

/**
 * What an XML activity file may hold. fast-xml-parser builds the whole tree (about 370 bytes
 * of heap per element or attribute of a GPX track, a second per 10,000 track points) and its
 * validator and parser build every text and attribute value one character at a time (about 34
 * bytes of heap per character): a 20 MB attribute or a 40 MB text exhausts the parse worker's
 * 512 MB heap, a million attributes take seconds, and a number of a million digits a quarter of
 * a second. So the track points (GPX trkpt, TCX Trackpoint), which are nearly all of a long
 * file, never go into that tree: they are cut out of the document as it is scanned and each is
 * read on its own when the parser asks for it (readPoint), a few microseconds and a few hundred
 * bytes apiece; the rest of the document (metadata, tracks, laps), small whatever the length of
 * the recording, is validated and parsed whole. A GPX of 400,000 points (5 days at one per
 * 1 s: 44 MB with positions, times and elevations) reads in seconds within the worker's heap.
 */
export const XML_LIMITS = {
  /** as large as an imported file may be (ImportReader's MAX_IMPORT_FILE_BYTES) */
  maxBytes: 64 * 1024 * 1024,
  /** elements plus attributes outside the track points */
  maxNodes: 1_000_000,
  /** elements plus attributes of one track point */
  maxPointNodes: 1_000,
  /** as fast-xml-parser's own maxNestedTags */
  maxDepth: 100,
  /** one tag with its attributes, `<` to `>` */
  maxTagLength: 64 * 1024,
  /** one text, comment or CDATA section: six times the longest description kept */
  maxTextLength: 64 * 1024
} as const

const count = (n: number) => n.toLocaleString("en-US")

/** Placeholder element for a run of track points cut out of the document. */
const RUN_TAG = "waymark-point-run"

/** A run of consecutive track points: [start, end) offsets of each in the text. */
type Run = Array<number>

/** The local name of the tag opened or closed at `lt` (`<gpxtpx:hr ...>` → `hr`). */
const tagName = (content: string, lt: number, gt: number): string => {
  let from = lt + 1
  if (content.charCodeAt(from) === 0x2f /* / */) from++
  let to = from
  while (to < gt) {
    const c = content.charCodeAt(to)
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2f /* / */ || c === 0x3e) break
    to++
  }
  const name = content.slice(from, to)
  const colon = name.indexOf(":")
  return colon === -1 ? name : name.slice(colon + 1)
}

const lineOf = (content: string, offset: number): number => {
  let line = 1
  for (let i = content.indexOf("\n"); i !== -1 && i < offset; i = content.indexOf("\n", i + 1)) line++
  return line
}

const truncated = (name: string, detail: string): never =>
  fail(`"${name}" is truncated or not well-formed XML: ${detail}. The file was probably cut short: copy or download it again.`)

/**
 * One pass over the text (indexOf from tag to tag) that refuses, before the validator and the
 * parser spend time and memory on them, documents with too many nodes, nesting too deep, or a
 * tag or text too long, and cuts out the elements named `pointTag`: consecutive ones (only
 * white space between them) become one run, replaced in the returned skeleton by a placeholder
 * element naming the run. The elements inside a point must balance; malformed markup elsewhere
 * is left to the validator, which says what is wrong.
 */
const scanXml = (content: string, name: string, pointTag: string): { readonly skeleton: string; readonly runs: ReadonlyArray<Run> } => {
  const tooLongText = (length: number) => fail(`"${name}" holds an XML text of ${count(length)} characters (at most ${count(XML_LIMITS.maxTextLength)})`)
  const runs: Array<Run> = []
  const skeleton: Array<string> = []
  let cut = 0 // the text before this offset is in the skeleton or in a run
  let run: Run | null = null
  let runStart = 0
  /** the point being read: where it started, its open elements, its nodes */
  let point = -1
  const open: Array<string> = []
  let pointNodes = 0
  let nodes = 0
  let depth = 0
  let i = 0
  const endRun = () => {
    if (run === null) return
    skeleton.push(content.slice(cut, runStart), `<${RUN_TAG} n="${runs.length}"/>`)
    cut = run[run.length - 1]!
    runs.push(run)
    run = null
  }
  while (i < content.length) {
    const lt = content.indexOf("<", i)
    const textEnd = lt === -1 ? content.length : lt
    if (textEnd - i > XML_LIMITS.maxTextLength) tooLongText(textEnd - i)
    if (lt === -1) break
    const section = content.startsWith("<!--", lt) ? "-->" : content.startsWith("<![CDATA[", lt) ? "]]>" : null
    if (section !== null) {
      const end = content.indexOf(section, lt)
      if (end === -1) break
      if (end - lt > XML_LIMITS.maxTextLength) tooLongText(end - lt)
      i = end + section.length
      continue
    }
    const gt = content.indexOf(">", lt)
    if (gt === -1) break
    if (gt - lt > XML_LIMITS.maxTagLength) {
      fail(`"${name}" has an XML tag of ${count(gt - lt + 1)} characters (at most ${count(XML_LIMITS.maxTagLength)})`)
    }
    i = gt + 1
    const kind = content.charCodeAt(lt + 1)
    if (kind === 0x3f /* <? */ || kind === 0x21 /* <! */) continue
    if (kind === 0x2f /* </ */) {
      depth--
      if (point === -1) {
        // a closing tag ends a run of points: what follows is the document's again
        endRun()
        continue
      }
      const closed = tagName(content, lt, gt)
      const expected = open.pop()
      if (closed !== expected) {
        fail(`"${name}" is not well-formed XML: </${closed}> closes <${expected}> (line ${lineOf(content, lt)}). The file is damaged: export it again from the device or its app.`)
      }
      if (open.length === 0) {
        run!.push(point, gt + 1)
        point = -1
      }
      continue
    }
    const selfClosing = content.charCodeAt(gt - 1) === 0x2f /* /> */
    let attributes = 0
    for (let k = lt + 1; k < gt; k++) if (content.charCodeAt(k) === 0x3d /* = */) attributes++
    if (!selfClosing && ++depth > XML_LIMITS.maxDepth) fail(`"${name}" nests XML elements more than ${XML_LIMITS.maxDepth} deep`)
    if (point !== -1) {
      pointNodes += 1 + attributes
      if (pointNodes > XML_LIMITS.maxPointNodes) {
        fail(`"${name}" has a track point of more than ${count(XML_LIMITS.maxPointNodes)} XML elements and attributes (line ${lineOf(content, lt)})`)
      }
      if (!selfClosing) open.push(tagName(content, lt, gt))
      continue
    }
    if (tagName(content, lt, gt) === pointTag) {
      // consecutive points make one run; anything else between them ends it
      if (run !== null && content.slice(run[run.length - 1]!, lt).trim() !== "") endRun()
      if (run === null) {
        run = []
        runStart = lt
      }
      pointNodes = 1 + attributes
      if (selfClosing) run.push(lt, gt + 1)
      else {
        point = lt
        open.push(pointTag)
      }
      continue
    }
    endRun()
    nodes += 1 + attributes
    if (nodes > XML_LIMITS.maxNodes) fail(`"${name}" has more than ${count(XML_LIMITS.maxNodes)} XML elements and attributes`)
  }
  if (point !== -1) truncated(name, `the track point at line ${lineOf(content, point)} is not closed`)
  endRun()
  skeleton.push(content.slice(cut))
  return { skeleton: runs.length === 0 ? content : skeleton.join(""), runs }
}

const fail = (message: string): never => {
  throw new ActivityFileError({ message })
}

/** Decodes the bytes of an XML file: UTF-16 when a byte-order mark says so, else UTF-8 (BOM dropped). */
const decodeText = (bytes: Uint8Array): string => {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes)
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes)
  return new TextDecoder("utf-8").decode(bytes)
}

/** Tags that may repeat in TCX and GPX files: always arrays after parsing. */
const ARRAY_TAGS: ReadonlySet<string> = new Set([
  "Activity", "MultiSportSession", "NextSport", "Lap", "Track", "Course", "trk", "trkseg", "rte", "rtept", "wpt", RUN_TAG
])

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true, // namespaces stripped; undeclared prefixes (gpxdata:) are tolerated
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  htmlEntities: false,
  isArray: (tagName) => ARRAY_TAGS.has(tagName),
  // callbacks get the path matcher, not a path string built for every tag (~20 % of the parse)
  jPath: false
})

/** An XML activity file read: its document without the track points, and the points, read one at a time. */
export interface XmlDocument {
  readonly root: XmlNode
  /** the track points directly under `node`, in file order, each read when reached */
  readonly points: (node: XmlNode | undefined) => Iterable<XmlNode>
  /** how many track points are directly under `node` */
  readonly countPoints: (node: XmlNode | undefined) => number
}

/**
 * Reads an XML activity file whose track points are the elements named `pointTag`: refuses
 * empty files, non-XML text, DOCTYPE/ENTITY declarations, documents beyond XML_LIMITS (all
 * before any parsing) and XML that is not well-formed; tolerates leading whitespace and a BOM.
 */
export const readXml = (bytes: Uint8Array, name: string, pointTag: string): XmlDocument => {
  if (bytes.length === 0) fail(`"${name}" is empty (0 bytes)`)
  if (bytes.length > XML_LIMITS.maxBytes) {
    fail(`"${name}" is too large to import as XML (${bytes.length.toLocaleString("en-US")} bytes; at most ${XML_LIMITS.maxBytes.toLocaleString("en-US")})`)
  }
  const content = decodeText(bytes).trimStart()
  if (content === "") fail(`"${name}" is empty (only whitespace)`)
  if (!content.startsWith("<")) fail(`"${name}" is not XML`)
  if (/<!DOCTYPE|<!ENTITY/i.test(content)) {
    fail(`"${name}" declares a DOCTYPE: XML with DOCTYPE or entity declarations is refused`)
  }
  const { skeleton, runs } = scanXml(content, name, pointTag)
  const valid = XMLValidator.validate(skeleton)
  if (valid !== true) {
    const { msg, line } = valid.err
    const unclosed = /unclosed|closing tag|not closed|end of/i.test(msg)
    fail(unclosed
      ? `"${name}" is truncated or not well-formed XML: ${msg} (line ${line}). The file was probably cut short: copy or download it again.`
      : `"${name}" is not well-formed XML: ${msg} (line ${line}). The file is damaged: export it again from the device or its app.`)
  }
  let root: XmlNode
  try {
    root = parser.parse(skeleton) as XmlNode
  } catch (e) {
    return fail(`"${name}" is not well-formed XML: ${e instanceof Error ? e.message : String(e)}`)
  }
  const runsOf = (node: XmlNode | undefined): Array<Run> =>
    children(node, RUN_TAG).flatMap((placeholder) => {
      const run = runs[Number(placeholder["@_n"])]
      return run === undefined ? [] : [run]
    })
  return {
    root,
    points: function*(node) {
      for (const run of runsOf(node)) for (let k = 0; k < run.length; k += 2) yield readPoint(content, run[k]!, run[k + 1]!, name)
    },
    countPoints: (node) => runsOf(node).reduce((total, run) => total + run.length / 2, 0)
  }
}

const ENTITIES: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: "\"", apos: "'" }

/** Text with its character and predefined entity references replaced; an unknown reference is not well-formed. */
const decodeEntities = (text: string, name: string): string =>
  text.indexOf("&") === -1 ? text : text.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    const known = whole.endsWith(";") ? ENTITIES[ref] : undefined
    if (known !== undefined) return known
    const code = /^#x[0-9a-f]+$/i.test(ref) ? parseInt(ref.slice(2), 16) : /^#\d+$/.test(ref) ? Number(ref.slice(1)) : NaN
    if (whole.endsWith(";") && Number.isInteger(code) && code > 0 && code <= 0x10ffff) return String.fromCodePoint(code)
    return fail(`"${name}" is not well-formed XML: "${whole.slice(0, 20)}" is no character reference. The file is damaged: export it again from the device or its app.`)
  })

/** Whether `node` has a key, without listing its keys: this runs for every element of every point. */
const hasKeys = (node: XmlNode): boolean => {
  for (const _ in node) return true
  return false
}

const ATTRIBUTE = /([^\s=/]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g

/**
 * One track point, [from, to) of the text, as fast-xml-parser gives an element with the
 * document's options: attributes as `@_name`, namespace prefixes removed, an element of text
 * alone as its trimmed text, one with attributes or children as an object (its text under
 * `#text`), repeated children as an array.
 */
const readPoint = (content: string, from: number, to: number, name: string): XmlNode => {
  interface Open {
    readonly name: string
    readonly node: XmlNode
    text: string
    elements: boolean
  }
  const stack: Array<Open> = []
  let result: XmlNode = {}
  let i = from
  const place = (parent: XmlNode, key: string, value: unknown) => {
    const existing = parent[key]
    if (existing === undefined) parent[key] = value
    else if (Array.isArray(existing)) existing.push(value)
    else parent[key] = [existing, value]
  }
  while (i < to) {
    const lt = content.indexOf("<", i)
    if (lt === -1 || lt >= to) break
    if (lt > i && stack.length > 0) stack[stack.length - 1]!.text += content.slice(i, lt)
    if (content.startsWith("<!--", lt)) {
      i = content.indexOf("-->", lt) + 3
      continue
    }
    if (content.startsWith("<![CDATA[", lt)) {
      const end = content.indexOf("]]>", lt)
      if (stack.length > 0) stack[stack.length - 1]!.text += content.slice(lt + 9, end).replaceAll("&", "&amp;")
      i = end + 3
      continue
    }
    const gt = content.indexOf(">", lt)
    i = gt + 1
    const kind = content.charCodeAt(lt + 1)
    if (kind === 0x3f || kind === 0x21) continue
    if (kind === 0x2f) {
      const element = stack.pop()!
      const text = decodeEntities(element.text.trim(), name)
      const attributed = hasKeys(element.node)
      const value = attributed || element.elements ? (text !== "" ? Object.assign(element.node, { "#text": text }) : element.node) : text
      if (stack.length === 0) result = typeof value === "string" ? { "#text": value } : value
      else place(stack[stack.length - 1]!.node, element.name, value)
      continue
    }
    const selfClosing = content.charCodeAt(gt - 1) === 0x2f
    const node: XmlNode = {}
    const attributeText = content.slice(lt + 1, selfClosing ? gt - 1 : gt)
    ATTRIBUTE.lastIndex = 0
    for (let m = ATTRIBUTE.exec(attributeText); m !== null; m = ATTRIBUTE.exec(attributeText)) {
      const key = m[1]!
      if (key === "xmlns" || key.startsWith("xmlns:")) continue
      const colon = key.indexOf(":")
      node[`@_${colon === -1 ? key : key.slice(colon + 1)}`] = decodeEntities(m[2] ?? m[3] ?? "", name)
    }
    const element = tagName(content, lt, gt)
    if (stack.length > 0) stack[stack.length - 1]!.elements = true
    if (selfClosing) {
      if (stack.length === 0) result = node
      else place(stack[stack.length - 1]!.node, element, Object.keys(node).length > 0 ? node : "")
      continue
    }
    stack.push({ name: element, node, text: "", elements: false })
  }
  return result
}

export const isNode = (value: unknown): value is XmlNode =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A child element as an object (the first one when repeated), or undefined. */
export const child = (node: unknown, name: string): XmlNode | undefined => {
  if (!isNode(node)) return undefined
  const value = node[name]
  const first = Array.isArray(value) ? value[0] : value
  return isNode(first) ? first : undefined
}

/** All children of that name, as objects. */
export const children = (node: unknown, name: string): Array<XmlNode> => {
  if (!isNode(node)) return []
  const value = node[name]
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value]
  return list.map((v) => (isNode(v) ? v : { "#text": v }))
}

/** The trimmed text of an element or attribute (first when repeated), or null when absent or empty. */
export const text = (node: unknown, name: string): string | null => {
  if (!isNode(node)) return null
  const raw = node[name]
  const value = Array.isArray(raw) ? raw[0] : raw
  const t = isNode(value) ? value["#text"] : value
  if (typeof t === "string") return t.trim() === "" ? null : t.trim()
  if (typeof t === "number") return String(t)
  return null
}

/** The root element: the one non-attribute key of the parsed document. */
export const rootOf = (doc: XmlNode): { readonly name: string; readonly node: XmlNode } | null => {
  for (const [key, value] of Object.entries(doc)) {
    if (key.startsWith("@_") || key === "#text") continue
    const node = Array.isArray(value) ? value[0] : value
    return { name: key, node: isNode(node) ? node : {} }
  }
  return null
}

/**
 * GPSBabel's "no time" (1901-12-13T20:45:52Z, the least 32-bit time_t): what it writes for a
 * point that had none. No device recorded anything at that instant.
 */
export const GPSBABEL_NO_TIME = -(2 ** 31) * 1000

/**
 * ISO 8601 instant -> epoch ms; a time without zone designator is read as UTC. Null when invalid,
 * and for GPSBabel's placeholder of a missing time.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i
export const parseIsoTime = (value: string | null): number | null => {
  if (value === null || value.length > 64) return null
  const m = ISO.exec(value.trim())
  if (m === null) return null
  // by index, not destructured: destructuring walks an iterator, for every point of a file
  const frac = m[7]
  const zone = m[8]
  const date = new Date(Date.UTC(2000, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0)))
  date.setUTCFullYear(Number(m[1])) // Date.UTC reads years 0 to 99 as 1900 to 1999
  let ms = date.getTime()
  if (frac !== undefined) ms += Math.round(Number(`0.${frac}`) * 1000)
  if (zone !== undefined && zone.toUpperCase() !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1
    const digits = zone.slice(1).replace(":", "")
    const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)
    ms -= sign * minutes * 60_000
  }
  return Number.isFinite(ms) && ms !== GPSBABEL_NO_TIME ? ms : null
}
