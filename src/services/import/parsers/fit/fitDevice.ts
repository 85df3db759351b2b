import { getFitGarminProductDisplayName, getFitManufacturerName } from "fit-file-parser"

/**
 * Names of common Garmin products (file_id.garmin_product / product ids), spelled as Garmin spells
 * them. Products not listed fall back to fit-file-parser's profile display name.
 */
const GARMIN_PRODUCTS: ReadonlyMap<number, string> = new Map([
  [717, "Forerunner 405"], [782, "Forerunner 50"], [988, "Forerunner 60"], [1018, "Forerunner 310XT"],
  [1036, "Edge 500"], [1124, "Forerunner 110"], [1169, "Edge 800"], [1328, "Forerunner 910XT"], [1345, "Forerunner 610"],
  [1436, "Forerunner 70"], [1482, "Forerunner 10"], [1551, "fenix"], [1561, "Edge 510"], [1567, "Edge 810"],
  [1623, "Forerunner 620"], [1632, "Forerunner 220"], [1765, "Forerunner 920XT"], [1836, "Edge 1000"],
  [1903, "Forerunner 15"], [1932, "Forerunner 15"], [1907, "vivoactive"], [1967, "fenix 2"], [1988, "epix"],
  [2050, "fenix 3"], [2067, "Edge 520"], [2148, "Forerunner 25"], [2153, "Forerunner 225"], [2156, "Forerunner 630"],
  [2157, "Forerunner 230"], [2158, "Forerunner 735XT"], [2204, "Edge Explore 1000"], [2337, "vivoactive HR"],
  [2348, "vivosmart HR"], [2413, "fenix 3 HR"], [2431, "Forerunner 235"], [2432, "fenix 3 Chronos"],
  [2503, "Forerunner 35"], [2530, "Edge 820"], [2544, "fenix 5S"], [2604, "fenix 5X"], [2691, "Forerunner 935"],
  [2697, "fenix 5"], [2700, "vivoactive 3"], [2713, "Edge 1030"], [2886, "Forerunner 645"],
  [2888, "Forerunner 645 Music"], [2891, "Forerunner 30"], [2900, "fenix 5S Plus"], [2909, "Edge 130"],
  [3011, "Edge Explore"], [3076, "Forerunner 245"], [3077, "Forerunner 245 Music"], [3110, "fenix 5 Plus"],
  [3111, "fenix 5X Plus"], [3112, "Edge 520 Plus"], [3113, "Forerunner 945"], [3121, "Edge 530"], [3122, "Edge 830"],
  [3126, "Instinct"], [3224, "vivoactive 4S"], [3225, "vivoactive 4"], [3282, "Forerunner 45"],
  [3288, "fenix 6S"], [3289, "fenix 6"], [3290, "fenix 6"], [3291, "fenix 6X"], [3466, "Instinct Solar"],
  [3558, "Edge 130 Plus"], [3570, "Edge 1030 Plus"], [3589, "Forerunner 745"], [3638, "Enduro"],
  [3652, "Forerunner 945 LTE"], [3843, "Edge 1040"], [3869, "Forerunner 55"], [3888, "Instinct 2"],
  [3905, "fenix 7S"], [3906, "fenix 7"], [3907, "fenix 7X"], [3943, "epix (Gen 2)"], [3990, "Forerunner 255 Music"],
  [3992, "Forerunner 255"], [4024, "Forerunner 955"], [4061, "Edge 540"], [4062, "Edge 840"], [4169, "Edge Explore 2"],
  [4257, "Forerunner 265"], [4258, "Forerunner 265S"], [4315, "Forerunner 965"], [4341, "Enduro 2"],
  [4426, "vivoactive 5"], [4432, "Forerunner 165"], [4440, "Edge 1050"], [4536, "fenix 8"]
])

/** Brand spellings where capitalising the FIT manufacturer name is not enough. */
const MANUFACTURERS: ReadonlyMap<string, string> = new Map([
  ["srm", "SRM"], ["sigmasport", "Sigma Sport"], ["coros", "Coros"], ["wahoo_fitness", "Wahoo Fitness"],
  ["peaksware", "TrainingPeaks"], ["the_sufferfest", "The Sufferfest"], ["4iiiis", "4iiii"], ["bryton", "Bryton"],
  ["hammerhead", "Hammerhead"], ["polar_electro", "Polar"], ["mio_technology_europe", "Mio"]
])

/**
 * Products of makers without a FIT manufacturer id of their own, who wrote "development" (255):
 * Zwift's files did before Zwift had its id (product 15706).
 */
const DEVELOPMENT_PRODUCTS: ReadonlyMap<number, string> = new Map([[15706, "Zwift"]])

const capitalise = (name: string): string =>
  name.split("_").filter((w) => w !== "").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ")

const nonEmpty = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null

/**
 * "<Manufacturer> <Product>" for Garmin products whose id is known, else the file's product_name,
 * else the manufacturer name capitalised (a known product of "development", e.g. Zwift's), else null.
 */
export const fitDeviceName = (fileId: Record<string, unknown> | undefined): string | null => {
  if (fileId === undefined) return null
  const rawManufacturer = fileId["manufacturer"]
  const manufacturer = typeof rawManufacturer === "number"
    ? getFitManufacturerName(rawManufacturer) ?? null
    : nonEmpty(rawManufacturer)
  const productId = typeof fileId["garmin_product"] === "number"
    ? fileId["garmin_product"]
    : typeof fileId["product"] === "number" ? fileId["product"] : null
  if (manufacturer === "garmin" && productId !== null) {
    const product = GARMIN_PRODUCTS.get(productId) ?? getFitGarminProductDisplayName(productId)
    if (product) return `Garmin ${product}`
  }
  const productName = nonEmpty(fileId["product_name"])
  if (productName !== null) return productName
  // "development" (255) is the FIT placeholder for unregistered makers: not a device name by itself
  if (manufacturer === "development") return (productId !== null ? DEVELOPMENT_PRODUCTS.get(productId) : undefined) ?? null
  if (manufacturer === null) return null
  return MANUFACTURERS.get(manufacturer) ?? capitalise(manufacturer)
}
