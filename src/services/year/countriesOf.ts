import { ActivityFields } from "../../schema/ActivityFields.ts"

/**
 * The countries of an activity: where it started, then those it passed through, each once. Kept
 * by their stored values, which few activities differ in (parsing each one's list anew is most
 * of the cost of reading the whole history).
 */
const keptCountries = new Map<unknown, Map<unknown, ReadonlyArray<string>>>()
const MAX_KEPT_COUNTRIES = 10_000
let keptCountryLists = 0
export const countriesOf = (countryCode: unknown, passedThrough: unknown): ReadonlyArray<string> => {
  let byList = keptCountries.get(countryCode)
  let countries = byList?.get(passedThrough)
  if (countries === undefined) {
    const start = ActivityFields.location.read(countryCode, null, null).countryCode
    countries = [...new Set([...(start === null ? [] : [start]), ...ActivityFields.passedThroughCountries.read(passedThrough)])]
    if (keptCountryLists >= MAX_KEPT_COUNTRIES) {
      keptCountries.clear()
      keptCountryLists = 0
      byList = undefined
    }
    if (byList === undefined) keptCountries.set(countryCode, byList = new Map())
    byList.set(passedThrough, countries)
    keptCountryLists++
  }
  return countries
}
