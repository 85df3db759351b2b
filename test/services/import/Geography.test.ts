import { describe, expect, it } from "@effect/vitest"
import { countryAt, locate, passedThroughCountries, timeZoneAt } from "../../../src/services/import/Geography.ts"

/** `count` points on a straight line from a to b. */
const line = (a: readonly [number, number], b: readonly [number, number], count: number): Array<[number, number]> =>
  Array.from({ length: count }, (_, i) => [a[0] + ((b[0] - a[0]) * i) / (count - 1), a[1] + ((b[1] - a[1]) * i) / (count - 1)])

describe("Geography", () => {
  it("locates Brugge with its country, state name and city", () => {
    const brugge = locate(51.2093, 3.2247)
    expect(brugge.countryCode).toBe("be")
    expect(["West-Vlaanderen", "West Flanders", "Flanders"]).toContain(brugge.state)
    expect(brugge.city).toBe("Brugge")
  })

  it("knows Japan's country and time zone", () => {
    expect(countryAt(35.6812, 139.7671)).toBe("jp")
    expect(timeZoneAt(35.6812, 139.7671)).toBe("Asia/Tokyo")
    expect(locate(35.6812, 139.7671)).toMatchObject({ countryCode: "jp", state: "Tokyo" })
  })

  it("returns null country, state and city in the mid-Atlantic, and null for invalid points", () => {
    expect(countryAt(35, -40)).toBeNull()
    expect(locate(35, -40)).toEqual({ countryCode: null, state: null, city: null })
    expect(timeZoneAt(95, 0)).toBeNull()
    expect(countryAt(Number.NaN, 0)).toBeNull()
  })

  it("reports territories by their own ISO code (Greenland is gl, not dk)", () => {
    expect(countryAt(64.18, -51.7)).toBe("gl")
  })

  it("lists the countries of a route Basel -> Lörrach, start country first", () => {
    const route = line([47.5596, 7.5886], [47.6156, 7.6614], 30_000)
    const countries = passedThroughCountries(route)
    expect(countries[0]).toBe("ch")
    expect(countries).toContain("de")
    expect(new Set(countries).size).toBe(countries.length)
  })

  it("finds a short border crossing in the middle of a long (30,000-point) route", () => {
    // Basel (ch) -> across the border into France (Saint-Louis) -> back, on 30,000 points
    const route = [
      ...line([47.5596, 7.5886], [47.5900, 7.5560], 15_000),
      ...line([47.5900, 7.5560], [47.5596, 7.5886], 15_000),
      null
    ]
    expect(passedThroughCountries(route)).toEqual(["ch", "fr"])
  })
})
