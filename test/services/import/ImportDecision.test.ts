import { describe, expect, it } from "@effect/vitest"
import type { EncodedActivityDraft } from "../../../src/schema/ActivityDraft.ts"
import { decide, type ImportFacts, needsParse, skippedMessage } from "../../../src/services/import/ImportDecision.ts"

/** A leg of a file: the decision passes drafts through, it never looks into them. */
const leg = (name: string) => ({ name }) as unknown as EncodedActivityDraft

const nothingKnown = { committed: null, activity: null }

const facts = (overrides: Partial<ImportFacts>): ImportFacts => ({
  outcome: { _tag: "Parsed", drafts: [leg("ride")] },
  known: nothingKnown,
  parsedNow: null,
  duplicates: [null],
  ...overrides
})

describe("the import's decision, from what was read and what the database holds", () => {
  it("refuses what is not a regular file, whatever the log knows of it", () => {
    expect(decide("pipe.gpx", facts({ outcome: { _tag: "Refused", message: "a pipe" }, known: { committed: "row-1", activity: null } }))).toEqual({ _tag: "Refuse" })
  })

  it("lets a file whose row was committed already leave, before any failure or duplicate", () => {
    const known = { committed: "row-1", activity: null }
    expect(decide("a.gpx", facts({ known }))).toEqual({ _tag: "Committed", fileImportId: "row-1" })
    expect(decide("a.gpx", facts({ known, outcome: { _tag: "Failed", message: "bad", truncated: true } }))).toEqual({ _tag: "Committed", fileImportId: "row-1" })
  })

  it("fails a file that did not read or parse, with the reader's reason, even when its bytes are an activity's", () => {
    const failed = facts({ outcome: { _tag: "Failed", message: "cut short", truncated: true }, known: { committed: null, activity: "activity-1" } })
    expect(decide("a.fit", failed)).toEqual({ _tag: "Fail", message: "cut short", truncated: true })
  })

  it("skips the same bytes as a stored activity, naming it, without parsing them", () => {
    const known = { committed: null, activity: "activity-1" }
    expect(decide("a.fit", facts({ outcome: { _tag: "Unparsed" }, known, duplicates: [] }))).toEqual({
      _tag: "Skip",
      original: "activity-1",
      sameBytes: true,
      copy: null
    })
    expect(needsParse({ _tag: "Unparsed" }, known)).toBe(false)
  })

  it("parses at commit a file whose known bytes are no longer an activity's, and waits for the writer of one that changed since", () => {
    expect(needsParse({ _tag: "Unparsed" }, nothingKnown)).toBe(true)
    expect(needsParse({ _tag: "Parsed", drafts: [] }, nothingKnown)).toBe(false)
    expect(decide("a.fit", facts({ outcome: { _tag: "Unparsed" }, parsedNow: null, duplicates: [] }))).toEqual({ _tag: "Wait" })
    const parsedNow = { _tag: "Parsed", drafts: [leg("ride")] } as const
    expect(decide("a.fit", facts({ outcome: { _tag: "Unparsed" }, parsedNow }))).toEqual({ _tag: "Import", drafts: [leg("ride")], storedLegs: [] })
    expect(decide("a.fit", facts({ outcome: { _tag: "Unparsed" }, parsedNow: { _tag: "Failed", message: "bad", truncated: false } }))).toEqual({
      _tag: "Fail",
      message: "bad",
      truncated: false
    })
  })

  it("fails a file that holds no activity", () => {
    expect(decide("empty.gpx", facts({ outcome: { _tag: "Parsed", drafts: [] }, duplicates: [] }))).toEqual({
      _tag: "Fail",
      message: "\"empty.gpx\" contains no activity.",
      truncated: false
    })
  })

  it("skips a file whose every activity is another recording of a stored one, naming the first, the copy joining it", () => {
    const outcome = { _tag: "Parsed", drafts: [leg("swim"), leg("bike")] } as const
    expect(decide("race.fit", facts({ outcome, duplicates: ["activity-swim", "activity-bike"] }))).toEqual({
      _tag: "Skip",
      original: "activity-swim",
      sameBytes: false,
      copy: leg("swim")
    })
  })

  it("imports the new activities of a race some of whose legs are stored, which the new ones name", () => {
    const outcome = { _tag: "Parsed", drafts: [leg("swim"), leg("bike"), leg("run")] } as const
    expect(decide("race.fit", facts({ outcome, duplicates: [null, "activity-bike", null] }))).toEqual({
      _tag: "Import",
      drafts: [leg("swim"), leg("run")],
      storedLegs: [{ leg: leg("bike"), id: "activity-bike" }]
    })
  })

  it("says in the skipped row's message which activity the file duplicates, and how", () => {
    expect(skippedMessage({ sameBytes: true }, "\"Ride\" (\"activity-1\")")).toBe("Skipped: the same file was already imported as the activity \"Ride\" (\"activity-1\").")
    expect(skippedMessage({ sameBytes: false }, "\"Ride\" (\"activity-1\")")).toBe(
      "Skipped: the activity \"Ride\" (\"activity-1\") already covers the same time (another recording of it, starting within 60 s)."
    )
  })
})
