import { XMLParser, XMLValidator } from "fast-xml-parser"
import { ActivityFileError } from "./ActivityFileError.ts"

export type XmlNode = Record<string, unknown>

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
 * Reads an XML activity file: refuses empty files, non-XML text, DOCTYPE/ENTITY declarations
 * (before any parsing) and XML that is not well-formed; tolerates leading whitespace and a BOM.
 */
export const readXml = (bytes: Uint8Array, name: string): XmlNode => {
  if (bytes.length === 0) fail(`"${name}" is empty (0 bytes)`)
  const content = decodeText(bytes).trimStart()
  if (content === "") fail(`"${name}" is empty (only whitespace)`)
  if (!content.startsWith("<")) fail(`"${name}" is not XML`)
  if (/<!DOCTYPE|<!ENTITY/i.test(content)) {
    fail(`"${name}" declares a DOCTYPE: XML with DOCTYPE or entity declarations is refused`)
  }
  const valid = XMLValidator.validate(content)
  if (valid !== true) {
    const { msg, line } = valid.err
    const unclosed = /unclosed|closing tag|not closed|end of/i.test(msg)
    fail(unclosed
      ? `"${name}" is truncated or not well-formed XML: ${msg} (line ${line})`
      : `"${name}" is not well-formed XML: ${msg} (line ${line})`)
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
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0))
  if (frac !== undefined) ms += Math.round(Number(`0.${frac}`) * 1000)
  if (zone !== undefined && zone.toUpperCase() !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1
    const digits = zone.slice(1).replace(":", "")
    const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)
    ms -= sign * minutes * 60_000
  }
  return Number.isFinite(ms) ? ms : null
}
