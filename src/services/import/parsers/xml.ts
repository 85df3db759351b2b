import { XMLParser, XMLValidator } from "fast-xml-parser"
import { ActivityFileError } from "./ActivityFileError.ts"

export type XmlNode = Record<string, unknown>

/**
 * What an XML activity file may hold. fast-xml-parser builds the whole tree (about 370 bytes
 * of heap per element or attribute of a GPX track) and its validator and parser build every
 * text and attribute value one character at a time (about 34 bytes of heap per character):
 * a 20 MB attribute or a 40 MB text exhausts the parse worker's 512 MB heap, a million
 * attributes take seconds, and a number of a million digits a quarter of a second. A real
 * file is far inside these (a day-long GPX at one point per second: 86,400 track points,
 * 780,000 nodes; texts of a few dozen characters, a description of at most 10,000).
 */
export const XML_LIMITS = {
  maxBytes: 32 * 1024 * 1024,
  /** elements plus attributes */
  maxNodes: 1_000_000,
  /** as fast-xml-parser's own maxNestedTags */
  maxDepth: 100,
  /** one tag with its attributes, `<` to `>` */
  maxTagLength: 64 * 1024,
  /** one text, comment or CDATA section: six times the longest description kept */
  maxTextLength: 64 * 1024
} as const

const count = (n: number) => n.toLocaleString("en-US")

/**
 * One pass over the text (indexOf from tag to tag) that refuses, before the validator and the
 * parser spend time and memory on them, documents with too many nodes, nesting too deep, or a
 * tag or text too long. Malformed markup is left to the validator, which says what is wrong.
 */
const checkXmlShape = (content: string, name: string): void => {
  const tooLongText = (length: number) => fail(`"${name}" holds an XML text of ${count(length)} characters (at most ${count(XML_LIMITS.maxTextLength)})`)
  let nodes = 0
  let depth = 0
  let i = 0
  while (i < content.length) {
    const lt = content.indexOf("<", i)
    const textEnd = lt === -1 ? content.length : lt
    if (textEnd - i > XML_LIMITS.maxTextLength) tooLongText(textEnd - i)
    if (lt === -1) return
    const section = content.startsWith("<!--", lt) ? "-->" : content.startsWith("<![CDATA[", lt) ? "]]>" : null
    if (section !== null) {
      const end = content.indexOf(section, lt)
      if (end === -1) return
      if (end - lt > XML_LIMITS.maxTextLength) tooLongText(end - lt)
      i = end + section.length
      continue
    }
    const gt = content.indexOf(">", lt)
    if (gt === -1) return
    if (gt - lt > XML_LIMITS.maxTagLength) {
      fail(`"${name}" has an XML tag of ${count(gt - lt + 1)} characters (at most ${count(XML_LIMITS.maxTagLength)})`)
    }
    const kind = content.charCodeAt(lt + 1)
    if (kind === 0x2f /* </ */) depth--
    else if (kind !== 0x3f /* <? */ && kind !== 0x21 /* <! */) {
      nodes++
      for (let k = lt + 1; k < gt; k++) if (content.charCodeAt(k) === 0x3d /* = */) nodes++
      if (content.charCodeAt(gt - 1) !== 0x2f /* /> */ && ++depth > XML_LIMITS.maxDepth) {
        fail(`"${name}" nests XML elements more than ${XML_LIMITS.maxDepth} deep`)
      }
      if (nodes > XML_LIMITS.maxNodes) fail(`"${name}" has more than ${count(XML_LIMITS.maxNodes)} XML elements and attributes`)
    }
    i = gt + 1
  }
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
  "Activity", "MultiSportSession", "NextSport", "Lap", "Track", "Trackpoint", "Course", "trk", "trkseg", "trkpt", "rte", "rtept", "wpt"
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

/**
 * Reads an XML activity file: refuses empty files, non-XML text, DOCTYPE/ENTITY declarations,
 * documents beyond XML_LIMITS (all before any parsing) and XML that is not well-formed;
 * tolerates leading whitespace and a BOM.
 */
export const readXml = (bytes: Uint8Array, name: string): XmlNode => {
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
  checkXmlShape(content, name)
  const valid = XMLValidator.validate(content)
  if (valid !== true) {
    const { msg, line } = valid.err
    const unclosed = /unclosed|closing tag|not closed|end of/i.test(msg)
    fail(unclosed
      ? `"${name}" is truncated or not well-formed XML: ${msg} (line ${line}). The file was probably cut short: copy or download it again.`
      : `"${name}" is not well-formed XML: ${msg} (line ${line}). The file is damaged: export it again from the device or its app.`)
  }
  try {
    return parser.parse(content) as XmlNode
  } catch (e) {
    return fail(`"${name}" is not well-formed XML: ${e instanceof Error ? e.message : String(e)}`)
  }
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

/** How many children of that name. */
export const countChildren = (node: unknown, name: string): number => {
  if (!isNode(node)) return 0
  const value = node[name]
  return Array.isArray(value) ? value.length : value === undefined ? 0 : 1
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

/** ISO 8601 instant -> epoch ms; a time without zone designator is read as UTC. Null when invalid. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i
export const parseIsoTime = (value: string | null): number | null => {
  if (value === null || value.length > 64) return null
  const m = ISO.exec(value.trim())
  if (m === null) return null
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const date = new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0)))
  date.setUTCFullYear(Number(y)) // Date.UTC reads years 0 to 99 as 1900 to 1999
  let ms = date.getTime()
  if (frac !== undefined) ms += Math.round(Number(`0.${frac}`) * 1000)
  if (zone !== undefined && zone.toUpperCase() !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1
    const digits = zone.slice(1).replace(":", "")
    const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)
    ms -= sign * minutes * 60_000
  }
  return Number.isFinite(ms) ? ms : null
}
