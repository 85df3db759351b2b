import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { type ActivityField, ActivityFields } from "../../../src/schema/ActivityFields.ts"
import { Activity } from "../../../src/schema/ApiModels.ts"
import { ACTIVITY_COLUMNS, activityColumns, activityOf, changedColumns, PERSONAL_COLUMNS } from "../../../src/services/activities/ActivityRow.ts"
import { makeDraft } from "../../support/TestDaemon.ts"

/**
 * The row reader, the insert's columns and the update's columns all follow from ActivityFields;
 * the reader is written out at load (an object literal), so it is checked here against the
 * declaration it is written from.
 */

const fields = Object.entries(ActivityFields) as Array<[string, ActivityField<any, ReadonlyArray<string>>]>

/** Anything SQLite may hand back for a column, whatever the column's type. */
const storedValue = fc.oneof(
  fc.constant(null),
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, 1, 2, Infinity, -Infinity, NaN),
  fc.string({ maxLength: 20 }),
  fc.constantFrom("", "[\"be\",\"nl\"]", "Ride", "zwift", "race", "activity-1", "gear-1")
)

describe("ActivityRow", () => {
  it("reads each field of the API's Activity, in the schema's order, as its declaration reads its own columns", () => {
    const images = [{ id: "activityImage-1", url: "http://localhost/files/activities/1.png" }]
    fc.assert(
      fc.property(fc.array(storedValue, { minLength: ACTIVITY_COLUMNS.length, maxLength: ACTIVITY_COLUMNS.length }), (values) => {
        const activity = activityOf(values, images) as Record<string, unknown>
        expect(Object.keys(activity)).toEqual(Object.keys(Activity.fields))
        for (const [name, field] of fields.filter(([, f]) => f.shown)) {
          const own = field.columns.map((column) => values[ACTIVITY_COLUMNS.indexOf(column as never)])
          expect(activity[name], name).toEqual(field.read(...own))
        }
        expect(activity.images).toBe(images)
      }),
      { numRuns: 300 }
    )
  })

  it("writes a computed activity, with its id, to the columns of every declared field; the start instant is stored, not shown", () => {
    const draft = makeDraft()
    const row = activityColumns("activity-1", draft)
    expect(Object.keys(row).sort()).toEqual(fields.flatMap(([, field]) => field.columns).sort())
    expect(row.id).toBe("activity-1")
    expect(row.start_time).toBe(draft.startTime)
    expect(ACTIVITY_COLUMNS).not.toContain("start_time")
  })

  it("writes the columns of the changed fields only, each as the insert writes it", () => {
    const draft = makeDraft({ description: "", gearId: "", isCommute: true, startLatLng: [1, 2] })
    const all = activityColumns("activity-1", draft)
    expect(changedColumns({ description: "", isCommute: true, startLatLng: [1, 2] })).toEqual({
      description: null, is_commute: 1, start_lat: 1, start_lng: 2
    })
    expect(changedColumns({ gearId: "" })).toEqual({ gear_id: null })
    expect(changedColumns({ name: draft.name, sportType: draft.sportType })).toEqual({ name: all.name, sport_type: all.sport_type })
    expect(changedColumns({})).toEqual({})
    expect(() => changedColumns({ id: "activity-2" } as never)).toThrow(/not a field/)
  })

  it("keeps, as a person's, the name, description, sport type, gear, commute flag and keeping out of records", () => {
    expect([...PERSONAL_COLUMNS].sort()).toEqual(["description", "exclude_from_records", "gear_id", "is_commute", "name", "sport_type"])
  })
})
