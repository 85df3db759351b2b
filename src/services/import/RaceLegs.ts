import type { Multisport } from "../../schema/ActivityDraft.ts"

/** A leg of a race as the import stores it: its computed race, which part it is, and the id it was given. */
export interface RaceLeg {
  readonly multisport: Multisport | null
  readonly racePart?: number | undefined
}

/**
 * The race of each activity of a multisport file with every leg's activity named: the leg's own
 * id, or that of the activity it duplicates (a swim leg imported before from its own file), or
 * null for a leg that is not stored (impossible as recorded). `legs` are the file's activities
 * stored now with their ids, `others` the legs stored before.
 */
export const linkRaceLegs = <L extends RaceLeg>(
  legs: ReadonlyArray<{ readonly leg: L; readonly id: string }>,
  others: ReadonlyArray<{ readonly leg: RaceLeg; readonly id: string }> = []
): Array<L> => {
  const idOfPart = new Map<number, string>()
  for (const { leg, id } of [...others, ...legs]) if (leg.racePart !== undefined) idOfPart.set(leg.racePart, id)
  return legs.map(({ leg }) =>
    leg.multisport === null
      ? leg
      : {
        ...leg,
        multisport: { parts: leg.multisport.parts.map((part, k) => ({ ...part, activityId: part.kind === "leg" ? idOfPart.get(k) ?? null : null })) }
      }
  )
}
