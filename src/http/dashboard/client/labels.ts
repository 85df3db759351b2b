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

export const GEAR_TYPES: Record<Gear["type"], string> = {
  imported: "Imported",
  custom: "Added here"
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
