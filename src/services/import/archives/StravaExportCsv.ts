import * as path from "node:path"
import { resolveSportName } from "../parsers/sportNames.ts"
import { type ExportedActivity, gearNamed } from "./ExportedActivity.ts"

/**
 * What a Strava bulk export's `activities.csv` says about each of its files, keyed by the
 * file's base name (`activities/123.fit.gz` → `123.fit.gz`): the name, description, commute
 * flag, gear and sport the person gave the activity on Strava, and its photos (the `Media`
 * column: `media/<id>.jpg` entries of the export, joined by `|`). The sport is what the athlete
 * chose ("Nordic Ski" for a file that says only `Other`); null when the export names none of
 * the vocabulary.
 */

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
export const csvRows = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  const input = text.startsWith("\uFEFF") ? text.slice(1) : text
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!
    if (quoted) {
      if (c === "\"" && input[i + 1] === "\"") (field += "\"", i++)
      else if (c === "\"") quoted = false
      else field += c
    } else if (c === "\"") quoted = true
    else if (c === ",") (row.push(field), field = "")
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && input[i + 1] === "\n") i++
      row.push(field), rows.push(row), row = [], field = ""
    } else field += c
  }
  if (field !== "" || row.length > 0) (row.push(field), rows.push(row))
  return rows.filter((r) => !(r.length === 1 && r[0] === ""))
}

const text = (value: string | undefined) => (value === undefined || value.trim() === "" ? null : value.trim())

export const readActivitiesCsv = (csv: string): ReadonlyMap<string, ExportedActivity> => {
  const [header, ...rows] = csvRows(csv)
  const byFile = new Map<string, ExportedActivity>()
  if (header === undefined) return byFile
  // the first column of each name: later exports repeat "Commute" as a number further on
  const column = (name: string) => header.indexOf(name)
  const [file, name, description, commute, gear, activityType, media] = ["Filename", "Activity Name", "Activity Description", "Commute", "Activity Gear", "Activity Type", "Media"].map(
    column
  )
  if (file === undefined || file === -1) return byFile
  for (const row of rows) {
    const filename = text(row[file])
    if (filename === null) continue
    const flag = text(row[commute!])?.toLowerCase()
    const gearName = text(row[gear!])
    byFile.set(path.posix.basename(filename), {
      name: text(row[name!]),
      description: text(row[description!]),
      sportType: resolveSportName(text(row[activityType!])),
      isCommute: flag === "true" || flag === "1" || flag === "1.0",
      gear: gearName === null ? null : gearNamed(gearName),
      images: (text(row[media!]) ?? "").split("|").map((m) => m.trim()).filter((m) => m !== "")
    })
  }
  return byFile
}
