import { call } from "../api.ts"
import { field, h, replace } from "../dom.ts"
import * as format from "../format.ts"
import { MILESTONE_KINDS } from "../labels.ts"
import type { Page } from "../main.ts"
import { paintSport } from "../palette.ts"
import type { Milestone } from "../yearTypes.ts"

/** The milestones as a timeline, newest first, a year at a time, with the kind to show. */

/** Each kind's mark on the line, in the colour of the milestone's sport (none: every sport, or a country). */
const MARKS: Record<Milestone["kind"], string> = {
  firstOfSportType: "1st",
  distanceMark: "Σ",
  record: "PR",
  eddington: "E",
  firstInCountry: "⚑",
  longestOfSportType: "↔",
  segmentRecord: "⏱"
}

const mark = (m: Milestone) => {
  const element = h("span", { class: "milestone-mark", "aria-hidden": "true" }, MARKS[m.kind])
  return m.sportType === null ? element : paintSport(element, m.sportType)
}

/** "Mar 4" (the year is the section's). */
const dayOfYear = (on: string) => new Date(`${on}T12:00:00`).toLocaleDateString(undefined, { month: "short", day: "numeric" })

export const yearMilestonesPage: Page = async (main, params) => {
  const { milestones } = await call("athleteYear.milestones")
  const kind = (Object.hasOwn(MILESTONE_KINDS, params.get("kind") ?? "") ? params.get("kind") : "") as Milestone["kind"] | ""
  const shown = kind === "" ? milestones : milestones.filter((m) => m.kind === kind)
  const counts = new Map<string, number>()
  for (const m of milestones) counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1)

  const select = h("select", {
    name: "kind",
    onchange: (e: Event) => {
      const value = (e.target as HTMLSelectElement).value
      location.hash = value === "" ? "#/milestones" : `#/milestones?kind=${value}`
    }
  }, h("option", { value: "" }, `Every kind (${format.count(milestones.length)})`),
  Object.entries(MILESTONE_KINDS).map(([k, label]) => h("option", { value: k, selected: k === kind }, `${label} (${format.count(counts.get(k) ?? 0)})`)))

  const byYear = new Map<string, Array<Milestone>>()
  for (const m of shown) {
    const year = m.on.slice(0, 4)
    byYear.set(year, [...(byYear.get(year) ?? []), m])
  }

  replace(main,
    h("h1", null, "Milestones"),
    h("form", { class: "filters compact", onsubmit: (e: Event) => e.preventDefault() }, field("Show", select)),
    shown.length === 0
      ? h("p", { class: "empty" }, "No milestone yet: every activity you import can make one.")
      : h("div", { id: "milestones" }, [...byYear].map(([year, list]) =>
        h("section", { class: "timeline-year", "aria-labelledby": `milestones-${year}` },
          h("h2", { id: `milestones-${year}` }, year, h("span", { class: "muted small" }, ` · ${format.count(list.length)}`)),
          h("ol", { class: "timeline" }, list.map((m) =>
            h("li", { class: `milestone ${m.kind}` },
              h("time", { datetime: m.on, class: "muted small" }, dayOfYear(m.on)),
              mark(m),
              h("a", { href: `#/activity/${encodeURIComponent(m.activityId)}` }, m.title))))))))
}
