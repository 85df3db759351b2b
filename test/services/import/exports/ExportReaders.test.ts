import { describe, expect, it } from "@effect/vitest"
import { planEndurain } from "../../../../src/services/import/exports/EndurainExport.ts"
import { planExport, recogniseExport } from "../../../../src/services/import/exports/ExportLayout.ts"
import { planFitTrackee } from "../../../../src/services/import/exports/FitTrackeeExport.ts"
import { garminSport, matchSummary } from "../../../../src/services/import/exports/GarminExport.ts"
import { planStrava, stravaMetadataFormat } from "../../../../src/services/import/exports/StravaExport.ts"
import { recordsOfTexts, summariesOfTexts } from "../../../support/metadataTexts.ts"

/** The readers on the texts of small exports written here: what each forgives, and what it matches. */

const at = (iso: string) => Date.parse(iso)

const JSON_LIST = { kind: "json" } as const

describe("Garmin summaries", async () => {
  const summaries = await summariesOfTexts([
    JSON.stringify([{
      summarizedActivitiesExport: [
        { activityId: 1, name: "Tri", activityType: "multi_sport", parent: true, startTimeGmt: at("2024-05-01T08:00:00Z") },
        { activityId: 2, name: "Swim leg", activityType: "open_water_swimming", parentId: 1, startTimeGmt: at("2024-05-01T08:00:00Z") },
        { activityId: 3, name: "Bike leg", activityType: "road_biking", parentId: 1, beginTimestamp: at("2024-05-01T08:40:00Z") },
        { activityId: 4, name: "No start", activityType: "running" }
      ]
    }]),
    // a list without its wrapper, starts as text
    JSON.stringify([{ activityId: 5, name: "Ski", activityType: "resort_skiing_snowboarding_ws", startTimeGmt: "2024-01-02 10:00:00", description: " powder " }]),
    "{ damaged"
  ])

  it("reads every summary with a start, in order of start, from either shape of file; a damaged file says nothing", () => {
    expect(summaries.map((s) => [s.activityId, s.startTime, s.isParent, s.metadata.sportType])).toEqual([
      ["5", at("2024-01-02T10:00:00Z"), false, "AlpineSki"],
      ["1", at("2024-05-01T08:00:00Z"), true, null],
      ["2", at("2024-05-01T08:00:00Z"), false, "OpenWaterSwim"],
      ["3", at("2024-05-01T08:40:00Z"), false, "Ride"]
    ])
    expect(summaries[0]!.metadata.description).toBe("powder")
  })

  it("matches the nearest start within 5 minutes, a leg before its parent at the same start, nothing beyond", () => {
    expect(matchSummary(summaries, at("2024-05-01T08:00:02Z"))?.name).toBe("Swim leg")
    expect(matchSummary(summaries, at("2024-05-01T08:38:00Z"))?.name).toBe("Bike leg")
    expect(matchSummary(summaries, at("2024-05-01T08:20:00Z"))).toBeNull()
    expect(matchSummary(summaries, at("2024-01-02T10:04:59Z"))?.name).toBe("Ski")
    expect(matchSummary(summaries, at("2024-01-02T10:05:01Z"))).toBeNull()
    expect(matchSummary([], at("2024-01-02T10:00:00Z"))).toBeNull()
  })

  it("reads Garmin's type keys, with or without their suffix, as our sports", () => {
    expect([
      "running", "trail_running", "treadmill_running", "lap_swimming", "indoor_cycling", "gravel_cycling", "mountain_biking", "e_bike_fitness",
      "cross_country_skiing_ws", "stand_up_paddleboarding_v2", "strength_training", "hiit", "yoga", "walking", "hiking", "multi_sport", "breathwork"
    ].map(garminSport)).toEqual([
      "Run", "TrailRun", "VirtualRun", "Swim", "VirtualRide", "GravelRide", "MountainBikeRide", "EBikeRide",
      "NordicSki", "StandUpPaddling", "WeightTraining", "HighIntensityIntervalTraining", "Yoga", "Walk", "Hike", null, null
    ])
  })
})

describe("Garmin gear", () => {
  const FITNESS = "DI_CONNECT/DI-Connect-Fitness/a@b.c"
  const summaries = JSON.stringify([{
    summarizedActivitiesExport: [
      { activityId: 11, name: "Ride", activityType: "road_biking", startTimeGmt: at("2024-05-01T08:00:00Z") },
      { activityId: 12, name: "Run", activityType: "running", startTimeGmt: at("2024-05-02T08:00:00Z") },
      { activityId: 13, name: "Walk", activityType: "walking", startTimeGmt: at("2024-05-03T08:00:00Z") },
      // the gear of a multisport activity is its legs' too, but where a leg has its own
      { activityId: 20, name: "Duathlon", activityType: "multi_sport", parent: true, startTimeGmt: at("2024-05-04T08:00:00Z") },
      { activityId: 21, name: "Duathlon run", activityType: "running", parentId: 20, startTimeGmt: at("2024-05-04T08:00:01Z") },
      { activityId: 22, name: "Duathlon ride", activityType: "road_biking", parentId: 20, startTimeGmt: at("2024-05-04T08:30:00Z") }
    ]
  }])
  const gear = JSON.stringify([{
    gearDTOS: [
      { gearPk: 1, displayName: "Domane", customMakeModel: "Trek Domane SL6", gearMakeName: "Trek", gearModelName: "Domane SL6", gearTypeName: "Bike", gearStatusName: "active" },
      // no name of its own: Connect shows its make and model; its power meter is gear too
      { gearPk: 2, displayName: null, customMakeModel: "Stages Power L", gearMakeName: "Stages", gearModelName: "Power L", gearTypeName: "Bike Component" },
      // a make Connect does not list: the placeholders are no make, the athlete's words are
      { gearPk: 3, displayName: "Novas", customMakeModel: "Nike Novablast", gearMakeName: "Unknown", gearModelName: "Unknown Shoes", gearTypeName: "Shoes" },
      { gearPk: 4, displayName: "  ", customMakeModel: "", gearMakeName: "Unknown", gearModelName: "Unknown", gearTypeName: "Other" }
    ],
    gearActivityDTOs: {
      // the power meter listed first: the bike is the ride's gear all the same
      2: [{ gearPk: 2, activityId: 11 }],
      1: [{ gearPk: 1, activityId: 11 }, { gearPk: 1, activityId: 22 }],
      // a link that names no gearPk is its key's; one to a gear not listed is none
      3: [{ activityId: 12 }, { activityId: 20 }],
      99: [{ gearPk: 99, activityId: 13 }]
    },
    gearActivityTypeDTOS: [{ gearPk: 1, activityTypePk: 10 }]
  }])

  it("reads each gear's name, make, model and kind from the gear file, and gives each summary the gear linked to its activity id", async () => {
    const entries = [`${FITNESS}_0_summarizedActivities.json`, `${FITNESS}_gear.json`, "DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip"]
    const layout = recogniseExport(entries)
    expect(layout.metadataEntries).toEqual(entries.slice(0, 2))
    const plan = planExport(layout, entries, await recordsOfTexts([[entries[0]!, summaries], [entries[1]!, gear]], layout.metadataFormat))
    expect(plan.gear).toEqual([
      { name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" },
      { name: "Stages Power L", brand: "Stages", model: "Power L", kind: "other" },
      { name: "Novas", brand: null, model: "Nike Novablast", kind: "shoes" }
    ])
    expect(plan.summaries.map((s) => [s.metadata.name, s.metadata.gear?.name ?? null])).toEqual([
      ["Ride", "Domane"], ["Run", "Novas"], ["Walk", null], ["Duathlon", "Novas"], ["Duathlon run", "Novas"], ["Duathlon ride", "Domane"]
    ])
    // the gear file is read, not left out
    expect(plan.skipped).toEqual([])
  })

  it("a damaged or missing gear file gives no gear; the summaries still name the activities", async () => {
    const entries = [`${FITNESS}_0_summarizedActivities.json`, `${FITNESS}_gear.json`]
    for (const text of ["[{\"gearDTOS\": [{\"gearPk\": 1, \"displayName\": \"Dom", "{\"gearDTOS\": []}", null]) {
      const texts: Array<readonly [string, string]> = [[entries[0]!, summaries], ...(text === null ? [] : [[entries[1]!, text] as const])]
      const plan = planExport(recogniseExport(entries), entries, await recordsOfTexts(texts, recogniseExport(entries).metadataFormat))
      expect(plan.gear).toEqual([])
      expect(plan.summaries.map((s) => s.metadata.gear)).toEqual(plan.summaries.map(() => null))
      expect(plan.summaries.map((s) => s.metadata.name)).toHaveLength(6)
    }
  })
})

describe("Strava activities.csv", () => {
  const strava = (text: string) => recordsOfTexts([["activities.csv", text]], stravaMetadataFormat)

  const entries = ["activities.csv", "activities/1.gpx", "activities/2.fit.gz", "activities/3.tcx", "media/a.jpg"]

  it("takes the first of the repeated Commute columns, only the listed photos the archive holds, and gear it does not list by its name alone (no kind)", async () => {
    const plan = planStrava("", entries, await strava([
      "Activity ID,Activity Name,Activity Type,Commute,Activity Gear,Filename,Commute,Media",
      "1,A,E-Bike Ride,false,Old bike,activities/1.gpx,1.0,media/a.jpg|media/missing.jpg",
      "2,\"B, with \"\"quotes\"\"\",Stair-Stepper,true,,activities/2.fit.gz,0.0,",
      "4,Manual,Run,false,,,,"
    ].join("\r\n")))
    expect(plan.activities.map((a) => [a.entry, a.metadata?.name ?? null, a.metadata?.sportType ?? null, a.metadata?.isCommute ?? null])).toEqual([
      ["activities/1.gpx", "A", "EBikeRide", false], ["activities/2.fit.gz", "B, with \"quotes\"", "StairStepper", true], ["activities/3.tcx", null, null, null]
    ])
    expect(plan.activities[0]!.metadata!.images).toEqual(["media/a.jpg"])
    expect(plan.activities[0]!.metadata!.gear).toEqual({ name: "Old bike", brand: null, model: null, kind: null })
    // an export without its gear files lists the gear its activities name
    expect(plan.gear).toEqual([{ name: "Old bike", brand: null, model: null, kind: null }])
  })

  it("imports the files of a damaged or missing activities.csv without metadata", async () => {
    expect(planStrava("", entries, new Map()).activities.map((a) => a.metadata)).toEqual([null, null, null])
    expect(planStrava("", entries, await strava("Filename\n\"activities/1.gpx")).activities.map((a) => a.metadata)).toEqual([null, null, null])
  })
})

describe("FitTrackee workouts", () => {
  it("a workout without a file is passed by, a file without a workout imported as it is, a missing equipment file lists the workouts' own", async () => {
    const plan = planFitTrackee("", ["user_workouts_data.json", "workout_files/a.gpx", "workout_files/orphan.fit"], await recordsOfTexts([["user_workouts_data.json", JSON.stringify([
      { title: "Manual", sport_label: "Running", original_file: null },
      { title: "Paddle", sport_label: "Standup Paddleboarding", original_file: "a.gpx", equipments: [{ label: "Board", equipment_type: { label: "Board" } }] }
    ])]], JSON_LIST))
    expect(plan.activities.map((a) => [a.entry, a.metadata?.name ?? null, a.metadata?.sportType ?? null])).toEqual([
      ["workout_files/a.gpx", "Paddle", "StandUpPaddling"], ["workout_files/orphan.fit", null, null]
    ])
    expect(plan.gear).toEqual([{ name: "Board", brand: null, model: null, kind: "other" }])
  })
})

describe("Endurain activities", () => {
  it("reads ids and codes written as numbers or texts; an unknown code is no sport, an unknown gear none", async () => {
    const plan = planEndurain(["data/activities.json", "activity_files/7.gpx", "activity_files/8.fit", "activity_files/x.fit", "counts.json"], await recordsOfTexts([
      ["data/activities.json", JSON.stringify([
        { id: "7", name: "Sail", activity_type: "43", gear_id: 99 },
        { id: 8, name: "New sport", activity_type: 99 }
      ])]
    ], JSON_LIST))
    expect(plan.activities.map((a) => [a.entry, a.metadata?.name ?? null, a.metadata?.sportType ?? null, a.metadata?.gear ?? null])).toEqual([
      ["activity_files/7.gpx", "Sail", "Sail", null], ["activity_files/8.fit", "New sport", null, null], ["activity_files/x.fit", null, null, null]
    ])
  })
})

describe("recogniseExport", () => {
  it("tells the layouts apart by their entries alone, Garmin first, and names only the metadata present", () => {
    const kind = (entries: Array<string>) => recogniseExport(entries).kind
    expect(kind(["DI_CONNECT/DI-Connect-Wellness/x.json", "activities.csv"])).toBe("garmin")
    expect(kind(["UploadedFiles_0-_Part1.zip"])).toBe("garmin")
    expect(kind(["activities.csv", "activities/1.fit.gz"])).toBe("strava")
    expect(kind(["a/b/activities.csv"])).toBe("unknown")
    expect(kind(["user_workouts_data.json"])).toBe("fittrackee")
    expect(kind(["data/user.json", "counts.json"])).toBe("endurain")
    expect(kind(["data/user.json", "rides/a.fit"])).toBe("unknown")
    expect(recogniseExport(["activities.csv", "shoes.csv"]).metadataEntries).toEqual(["activities.csv", "shoes.csv"])
    const unknown = recogniseExport(["a.fit"])
    expect(planExport(unknown, ["a.fit"], new Map()).activities).toHaveLength(1)
  })
})
