import { h, replace } from "../dom.ts"
import type { Page } from "../main.ts"

/** Totals, records, Eddington number and heatmap, read from the statistics routes. */

export const statsPage: Page = async (main) => {
  replace(main, h("h1", null, "Statistics"), h("p", { class: "muted" }, "The statistics routes are not in this service yet."))
}
