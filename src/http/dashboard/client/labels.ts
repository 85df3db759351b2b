import type { FileImport, Gear, PersonalRecord } from "./types.ts"
import type { GearComponent, Milestone } from "./yearTypes.ts"

/** The API's words for a person: every value of these fields has its name here, checked by its type. */

export const IMPORT_SOURCES: Record<FileImport["source"], string> = {
  fitFile: "FIT file",
  tcxFile: "TCX file",
  gpxFile: "GPX file",
  kmlFile: "KML file",
  kmzFile: "KMZ file",
  zipFile: "Zip archive",
  garminExport: "Garmin Connect export",
  stravaExport: "Strava export",
  fitTrackeeExport: "FitTrackee export",
  endurainExport: "Endurain export",
  otherFile: "Other file"
}

export const IMPORT_STATUSES: Record<FileImport["status"], string> = {
  queued: "Queued",
  success: "Imported",
  skipped: "Skipped",
  failed: "Failed"
}

/** A record's kind: an indoor effort's records are apart from the outdoor ones. */
export const DISCIPLINES: Record<PersonalRecord["discipline"], string> = {
  run: "run",
  ride: "ride",
  virtualRun: "virtual run",
  virtualRide: "virtual ride"
}

export const GEAR_KINDS: Record<NonNullable<Gear["kind"]>, string> = {
  bike: "Bike",
  shoes: "Shoes",
  other: "Other"
}

/** What a gear is, as a person reads it: its kind, brand and model ("Bike · Trek Domane SL6"); where it came from when nothing else is known. */
export const gearMake = (g: Pick<Gear, "brand" | "model" | "kind" | "type">): string => {
  const make = [g.brand, g.model].filter((t): t is string => t !== null && t.trim() !== "")
  // a model often repeats its brand ("Trek" and "Trek Domane")
  const text = make.length === 2 && make[1]!.toLowerCase().startsWith(make[0]!.toLowerCase()) ? make[1]! : make.join(" ")
  const parts = [g.kind === null ? null : GEAR_KINDS[g.kind], text === "" ? null : text].filter((t): t is string => t !== null)
  return parts.length > 0 ? parts.join(" · ") : g.type === "custom" ? "Added here" : "Imported"
}

export const COMPONENT_STATUSES: Record<GearComponent["status"], string> = {
  ok: "OK",
  dueSoon: "Due soon",
  overdue: "Overdue"
}

export const MILESTONE_KINDS: Record<Milestone["kind"], string> = {
  firstOfSportType: "Firsts",
  distanceMark: "Distance marks",
  record: "Records",
  eddington: "Eddington numbers",
  firstInCountry: "Countries",
  longestOfSportType: "Longest so far",
  segmentRecord: "Segment records"
}
