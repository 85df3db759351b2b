import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import type { Parsed, PreparedImport } from "./ImportReader.ts"
import type { KnownBytes } from "./SameBytes.ts"

/**
 * What the commit of a file decides, as a plain function of what was read and parsed and what
 * the database holds by then; ImportRecorder records the decision. In this order: what is not a
 * regular file is refused (once, it stays where it is); a file whose row was committed already
 * leaves the folder; a file that failed to read or parse fails; the same bytes as a stored
 * activity are skipped naming it; a file that changed since it was read waits for its writer;
 * a file with no activity fails; activities each of which is another recording of a stored one
 * (starting within 60 s, overlapping it, Duplicates) are skipped naming the first; else the
 * activities that are new are imported, the legs of a race stored before named by the new ones.
 */

/** An activity of the file that another recording of it, stored before, already is. */
export interface StoredLeg {
  readonly leg: EncodedActivityDraft
  readonly id: string
}

/** What the commit knows of a prepared file. */
export interface ImportFacts {
  /** what the reader made of the file (Unparsed: its bytes were known, so it was not parsed) */
  readonly outcome: PreparedImport["outcome"]
  /** what the import log knows of its bytes */
  readonly known: KnownBytes
  /** an Unparsed file parsed now that its bytes are no longer known; null when it was not, or it changed since it was read */
  readonly parsedNow: Parsed | null
  /** for each activity parsed, in order, the stored activity it is another recording of, or null */
  readonly duplicates: ReadonlyArray<string | null>
}

export type ImportDecision =
  /** not a regular file: refused once, left where it is */
  | { readonly _tag: "Refuse" }
  /** this very file has its row already: it leaves the folder */
  | { readonly _tag: "Committed"; readonly fileImportId: string }
  /** the file changed since it was read: read again once its writer is done and it holds still */
  | { readonly _tag: "Wait" }
  /** failed, its original kept; `truncated` when it looks cut short (then held in the folder while young) */
  | { readonly _tag: "Fail"; readonly message: string; readonly truncated: boolean }
  /**
   * a duplicate of the stored activity `original`: of its very bytes (`sameBytes`, whose original
   * is that activity's), or another recording of the same time (`copy`, kept with its row); what
   * it brings joins that activity
   */
  | { readonly _tag: "Skip"; readonly original: string; readonly sameBytes: boolean; readonly copy: EncodedActivityDraft | null }
  /** the new activities, and the legs of the file's race that are stored already */
  | { readonly _tag: "Import"; readonly drafts: ReadonlyArray<EncodedActivityDraft>; readonly storedLegs: ReadonlyArray<StoredLeg> }

/** What the file parsed to, once its bytes are known to need it: the reader's outcome, or the parse at commit. */
export const parsedOf = (facts: Pick<ImportFacts, "outcome" | "parsedNow">): Parsed | null =>
  facts.outcome._tag === "Parsed" || facts.outcome._tag === "Failed" ? facts.outcome : facts.parsedNow

/** Whether the commit must parse the file first: it was not parsed as its bytes were known, and they no longer are. */
export const needsParse = (outcome: PreparedImport["outcome"], known: KnownBytes): boolean =>
  outcome._tag === "Unparsed" && known.committed === null && known.activity === null

export const decide = (filename: string, facts: ImportFacts): ImportDecision => {
  const { known, outcome } = facts
  if (outcome._tag === "Refused") return { _tag: "Refuse" }
  if (known.committed !== null) return { _tag: "Committed", fileImportId: known.committed }
  if (outcome._tag === "Failed") return { _tag: "Fail", message: outcome.message, truncated: outcome.truncated }
  if (known.activity !== null) return { _tag: "Skip", original: known.activity, sameBytes: true, copy: null }
  const parsed = parsedOf(facts)
  if (parsed === null) return { _tag: "Wait" }
  if (parsed._tag === "Failed") return { _tag: "Fail", message: parsed.message, truncated: parsed.truncated }
  if (parsed.drafts.length === 0) return { _tag: "Fail", message: `"${filename}" contains no activity.`, truncated: false }
  const fresh: Array<EncodedActivityDraft> = []
  const storedLegs: Array<StoredLeg> = []
  parsed.drafts.forEach((leg, i) => {
    const id = facts.duplicates[i] ?? null
    if (id === null) fresh.push(leg)
    else storedLegs.push({ leg, id })
  })
  const first = storedLegs[0]
  if (fresh.length === 0 && first !== undefined) return { _tag: "Skip", original: first.id, sameBytes: false, copy: first.leg }
  return { _tag: "Import", drafts: fresh, storedLegs }
}

/** The message of a skipped file's row, `described` naming the activity it duplicates as a person knows it. */
export const skippedMessage = (decision: { readonly sameBytes: boolean }, described: string): string =>
  decision.sameBytes
    ? `Skipped: the same file was already imported as the activity ${described}.`
    : `Skipped: the activity ${described} already covers the same time (another recording of it, starting within 60 s).`
