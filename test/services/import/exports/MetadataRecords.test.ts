import { describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { garminMetadataFormat } from "../../../../src/services/import/exports/GarminExport.ts"
import {
  MetadataBudget, type MetadataFormat, type MetadataLimits, MetadataOverLimit, readMetadataRecords, SLICE
} from "../../../../src/services/import/exports/MetadataRecords.ts"
import { stravaMetadataFormat } from "../../../../src/services/import/exports/StravaExport.ts"
import { DEFAULT_EXPORT_METADATA_LIMITS } from "../../../../src/services/platform/AppConfig.ts"

/**
 * The metadata files of an export read as streams within the archive's limits: the attacks on
 * them (a huge field, a huge value, a file of blanks, a million rows) scaled down by lowering
 * the limits, each refused naming the file; damaged files say nothing; requests are served
 * between the slices of a large file.
 */

const LIMITS: MetadataLimits = { fileBytes: 256 * 1024, totalBytes: 512 * 1024, recordBytes: 4096, records: 1000 }
const CSV: MetadataFormat = { kind: "csv" }
const JSON_LIST: MetadataFormat = { kind: "json" }
const GARMIN_SUMMARIES = garminMetadataFormat("a_0_summarizedActivities.json")

const read = (text: string | Buffer, format: MetadataFormat, limits = LIMITS, entry = "export/activities.csv") =>
  readMetadataRecords(entry, [text], format, new MetadataBudget(limits))

/** The message of the MetadataOverLimit the read fails with. */
const refusal = async (reading: Promise<unknown>): Promise<string> => {
  const error = await reading.then(() => null, (e: unknown) => e)
  expect(error).toBeInstanceOf(MetadataOverLimit)
  return (error as Error).message
}

describe("metadata files read within bounds", () => {
  it("a CSV: by header name, the first of a repeated column, quoted commas, doubled quotes and line breaks, a BOM; only the columns asked for", async () => {
    expect(await read("\uFEFFa,b,a\r\n1,\"x, \"\"y\"\"\nz\",3\n\n4\n", CSV)).toEqual([{ a: "1", b: "x, \"y\"\nz" }, { a: "4" }])
    const row = await read("Activity Name,Secret,Filename\nRun,s3cret,activities/1.fit\n", stravaMetadataFormat)
    expect(row).toEqual([{ "Activity Name": "Run", Filename: "activities/1.fit" }])
  })

  it("a quoted field larger than a record may be (the 50 MB field, scaled down) is refused naming the file", async () => {
    const csv = `Activity Name,Filename\n"${"x".repeat(LIMITS.recordBytes + 1)}",activities/1.fit\n`
    expect(await refusal(read(csv, CSV))).toBe(
      `its metadata file "export/activities.csv" has a record larger than 4 KB (EXPORT_METADATA_MAX_RECORD_SIZE)`
    )
    // an unclosed quote running to the end of the file is the same field
    expect(await refusal(read(`a\n"${"y".repeat(LIMITS.recordBytes * 3)}`, CSV))).toMatch(/has a record larger than 4 KB/)
  })

  it("more rows than the archive may hold (the million rows, scaled down) are refused, counted over all the archive's files", async () => {
    const rows = (n: number) => `Filename\n${Array.from({ length: n }, (_, i) => `activities/${i}.fit`).join("\n")}\n`
    expect(await read(rows(LIMITS.records), CSV)).toHaveLength(LIMITS.records)
    expect(await refusal(read(rows(LIMITS.records + 1), CSV))).toBe(
      `its metadata files hold more than 1000 records (EXPORT_METADATA_MAX_RECORDS), past it at "export/activities.csv"`
    )
    const budget = new MetadataBudget(LIMITS)
    await readMetadataRecords("bikes.csv", [rows(600)], CSV, budget)
    expect(await refusal(readMetadataRecords("shoes.csv", [rows(600)], CSV, budget))).toMatch(/past it at "shoes.csv"$/)
  })

  it("a list of lists (Garmin's gear file): each object at the paths asked for is a record saying where it lies, within the same bounds", async () => {
    const gearFile = garminMetadataFormat("DI_CONNECT/DI-Connect-Fitness/a_gear.json")
    const text = JSON.stringify([{ gearDTOS: [{ gearPk: 1 }, 2], gearActivityDTOs: { 1: [{ activityId: 7 }, { activityId: 8 }] }, other: [{ x: 1 }] }])
    expect(await read(text, gearFile)).toEqual([
      { at: [0, "gearDTOS", 0], value: { gearPk: 1 } },
      { at: [0, "gearActivityDTOs", "1", 0], value: { activityId: 7 } },
      { at: [0, "gearActivityDTOs", "1", 1], value: { activityId: 8 } }
    ])
    const huge = JSON.stringify([{ gearDTOS: [{ gearPk: 1, displayName: "x".repeat(LIMITS.recordBytes + 1) }] }])
    expect(await refusal(read(huge, gearFile, LIMITS, "a_gear.json"))).toBe(`its metadata file "a_gear.json" has a record larger than 4 KB (EXPORT_METADATA_MAX_RECORD_SIZE)`)
    const links = JSON.stringify([{ gearActivityDTOs: { 1: Array.from({ length: LIMITS.records + 1 }, (_, i) => ({ activityId: i })) } }])
    expect(await refusal(read(links, gearFile, LIMITS, "a_gear.json"))).toMatch(/more than 1000 records \(EXPORT_METADATA_MAX_RECORDS\), past it at "a_gear.json"$/)
    for (const damaged of ["{\"gearDTOS\": []}", "[{\"gearDTOS\": [{\"gearPk\": 1", "nope"]) expect(await read(damaged, gearFile)).toEqual([])
  })

  it("a file larger than a metadata file may be (63 MB of blanks, scaled down) is refused naming it, and so is the archive's whole past its total", async () => {
    const blanks = `[${" ".repeat(LIMITS.fileBytes)}]`
    expect(await refusal(read(blanks, GARMIN_SUMMARIES, LIMITS, "DI_CONNECT/DI-Connect-Fitness/a_0_summarizedActivities.json"))).toBe(
      `its metadata file "DI_CONNECT/DI-Connect-Fitness/a_0_summarizedActivities.json" is larger than 256 KB (EXPORT_METADATA_MAX_FILESIZE)`
    )
    const budget = new MetadataBudget(LIMITS)
    const justUnder = `[${" ".repeat(LIMITS.fileBytes - 2)}]`
    expect(await readMetadataRecords("a_0_summarizedActivities.json", [justUnder], GARMIN_SUMMARIES, budget)).toEqual([])
    expect(await readMetadataRecords("a_1_summarizedActivities.json", [justUnder], GARMIN_SUMMARIES, budget)).toEqual([])
    expect(await refusal(readMetadataRecords("a_2_summarizedActivities.json", [justUnder], GARMIN_SUMMARIES, budget))).toBe(
      `its metadata files are larger than 512 KB together (EXPORT_METADATA_MAX_SIZE), past it at "a_2_summarizedActivities.json"`
    )
  })

  it("JSON: a string, a number or a record past the record bound is refused, whether it arrives whole or across slices", async () => {
    const long = "z".repeat(SLICE * 2)
    const limits = { ...LIMITS, fileBytes: SLICE * 4, totalBytes: SLICE * 4 }
    for (const text of [`[{"name":"${long}"}]`, `[{"${long}":1}]`, `[{"n":${"9".repeat(SLICE * 2)}}]`, `[{"a":[${"1,".repeat(SLICE)}1]}]`]) {
      expect(await refusal(read(text, JSON_LIST, limits, "data/activities.json"))).toBe(
        `its metadata file "data/activities.json" has a record larger than 4 KB (EXPORT_METADATA_MAX_RECORD_SIZE)`
      )
    }
    // many records each within the bound are not one record
    const many = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ id: i, name: "x".repeat(100) })))
    expect(await read(many, JSON_LIST, limits)).toHaveLength(500)
  })

  it("Garmin's summaries: the wrapped list and the bare one; damaged JSON, a document that is no list or a list cut short say nothing", async () => {
    const wrapped = JSON.stringify([{ summarizedActivitiesExport: [{ activityId: 1 }, { activityId: 2 }] }, { summarizedActivitiesExport: [{ activityId: 3 }] }])
    expect(await read(wrapped, GARMIN_SUMMARIES)).toEqual([{ activityId: 1 }, { activityId: 2 }, { activityId: 3 }])
    expect(await read(JSON.stringify([{ activityId: 4 }, 5, [6]]), GARMIN_SUMMARIES)).toEqual([{ activityId: 4 }])
    for (const damaged of ["{ damaged", "{\"a\":1}", "[{\"a\":1},", "[{\"a\":1}] trailing", "", "\"text\""]) {
      expect(await read(damaged, GARMIN_SUMMARIES)).toEqual([])
    }
    expect(await read("a,\"b\nc", CSV)).toEqual([])
  })

  it("the defaults take a real export's files: a 5,000-row activities.csv with long descriptions", async () => {
    const csv = `Activity ID,Activity Name,Activity Description,Filename\n${
      Array.from({ length: 5_000 }, (_, i) => `${i},Ride ${i},"A long, ""quoted"" description ${"of the ride ".repeat(20)}",activities/${i}.fit.gz`).join("\n")
    }\n`
    expect(await read(csv, stravaMetadataFormat, DEFAULT_EXPORT_METADATA_LIMITS)).toHaveLength(5_000)
  }, 60_000)

  it("a large file within the bounds is parsed in slices: requests to a server of the same process are answered while it is read", async () => {
    const server = http.createServer((_request, response) => response.end("ok"))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      // about 2 MB: over thirty slices
      const csv = `Activity Name,Filename\n${Array.from({ length: 50_000 }, (_, i) => `"Ride, number ${i}",activities/${i}.fit`).join("\n")}\n`
      let done = false
      const reading = read(csv, stravaMetadataFormat, DEFAULT_EXPORT_METADATA_LIMITS).finally(() => {
        done = true
      })
      // each request is answered before the file is read to its end: the loop was free between slices
      const answeredWhileReading: Array<boolean> = []
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(`http://127.0.0.1:${port}/status`)
        expect(await answer.text()).toBe("ok")
        answeredWhileReading.push(!done)
      }
      expect(answeredWhileReading).toEqual([true, true, true])
      expect(await reading).toHaveLength(50_000)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  }, 60_000)
})
