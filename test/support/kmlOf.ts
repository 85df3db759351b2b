import type { ParsedSamples } from "../../src/schema/ParsedActivity.ts"

/**
 * A KML recording of `samples` as the two writers the import meets write it: Google Earth's
 * `gx:Track` (KML 2.2, every `<when>` then every `<gx:coord>`) and OpenTracks' `Track` (KML
 * 2.3, each `<when>` followed by its `<coord>`, as FitTrackee exports them), with heart rate,
 * cadence and power as `SimpleArrayData` arrays when the samples have them.
 */
export interface KmlRecording {
  readonly samples: ParsedSamples
  readonly name?: string
  readonly description?: string
  /** OpenTracks' activity type, a word the athlete chose ("marche", "running") */
  readonly type?: string
  readonly writer: "googleEarth" | "openTracks"
}

const escape = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")

export const kmlOf = ({ description, name, samples, type, writer }: KmlRecording): string => {
  const gx = writer === "googleEarth" ? "gx:" : ""
  const when = (i: number) => `<when>${new Date(samples.time[i]!).toISOString()}</when>`
  const coord = (i: number) =>
    samples.lat[i] == null ? `<${gx}coord/>` : `<${gx}coord>${samples.lng[i]} ${samples.lat[i]} ${samples.altitude[i] ?? 0}</${gx}coord>`
  const indexes = samples.time.map((_, i) => i)
  const body = writer === "googleEarth"
    ? [...indexes.map(when), ...indexes.map(coord)].join("\n")
    : indexes.map((i) => `${when(i)}\n${coord(i)}`).join("\n")
  const arrays = ([["heartrate", samples.heartRate], ["cadence", samples.cadence], ["power", samples.power]] as const)
    .filter(([, values]) => values.some((v) => v !== null))
    .map(([field, values]) => `<gx:SimpleArrayData name="${field}">${values.map((v) => `<gx:value>${v ?? ""}</gx:value>`).join("")}</gx:SimpleArrayData>`)
  const extended = arrays.length === 0 ? "" : `<ExtendedData><SchemaData schemaUrl="#schema">${arrays.join("\n")}</SchemaData></ExtendedData>`
  const version = writer === "googleEarth" ? "2.2" : "2.3"
  return `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/${version}" xmlns:gx="http://www.google.com/kml/ext/${version}" xmlns:atom="http://www.w3.org/2005/Atom">
  <Document>
    <name>${escape(name ?? "track")}</name>
    <atom:generator>${writer === "googleEarth" ? "Google Earth" : "OpenTracks"}</atom:generator>
    <Placemark>
      ${name === undefined ? "" : `<name><![CDATA[${name}]]></name>`}
      ${description === undefined ? "" : `<description><![CDATA[${description}]]></description>`}
      ${type === undefined ? "" : `<ExtendedData><Data name="type"><value><![CDATA[${type}]]></value></Data></ExtendedData>`}
      <${gx}MultiTrack>
        <altitudeMode>absolute</altitudeMode>
        <${gx}Track>
${body}
${extended}
        </${gx}Track>
      </${gx}MultiTrack>
    </Placemark>
  </Document>
</kml>
`
}
