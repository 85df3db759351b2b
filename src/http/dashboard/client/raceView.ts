import { api } from "./api.ts"
import { h } from "./dom.ts"
import * as format from "./format.ts"
import type { Activity } from "./types.ts"

/**
 * A multisport race as one event, on the page of each of its legs: the race's name and total
 * time, a bar of its legs and transitions in proportion to their time, and a table of them, each
 * leg linked to its own page (the one shown marked).
 */

type Part = NonNullable<Activity["multisport"]>["parts"][number]

/** The colour class of a part: a swim, a ride, a run, another sport, or a transition. */
const kindOf = (part: Part) =>
  part.kind === "transition" || part.sportType === null
    ? "transition"
    : format.isSwim(part.sportType)
    ? "swim"
    : /Ride/.test(part.sportType)
    ? "ride"
    : /Run|Walk|Hike/.test(part.sportType)
    ? "run"
    : "other"

/** What the race is called by the order of its legs. */
const raceName = (legs: ReadonlyArray<Part>) => {
  const order = legs.map(kindOf).join(" ")
  return order === "swim ride run" ? "Triathlon" : order === "run ride run" ? "Duathlon" : order === "swim run" ? "Aquathlon" : "Multisport race"
}

export const raceSection = async (activity: Activity): Promise<HTMLElement | null> => {
  const parts = activity.multisport?.parts ?? []
  if (parts.length < 2) return null
  const legs = parts.filter((p) => p.kind === "leg")
  // each leg as it is now (a name or sport changed by hand); a leg deleted since is named by none
  const stored = new Map<string, Activity>()
  await Promise.all(legs.map(async (p) => {
    if (p.activityId === null) return
    if (p.activityId === activity.id) stored.set(p.activityId, activity)
    else stored.set(p.activityId, await api<Activity>(`activities/${encodeURIComponent(p.activityId)}`).catch(() => activity))
  }))
  const last = parts[parts.length - 1]!
  const total = Math.max(1, last.startOffsetInSeconds + last.elapsedTimeInSeconds)
  let transitions = 0
  const labelOf = (p: Part) => (p.kind === "transition" ? `T${++transitions}` : format.sportLabel(stored.get(p.activityId ?? "")?.sportType ?? p.sportType ?? ""))
  const labels = parts.map(labelOf)

  const bar = h("div", { class: "race-bar", role: "img", "aria-label": parts.map((p, i) => `${labels[i]} ${format.duration(p.elapsedTimeInSeconds)}`).join(", ") },
    parts.map((p, i) => {
      const part = h("span", { class: `race-part ${kindOf(p)}`, title: `${labels[i]}: ${format.duration(p.elapsedTimeInSeconds)}` })
      // set through the style object: the page's policy refuses style attributes
      part.style.flexGrow = String(Math.max(p.elapsedTimeInSeconds, 1))
      return part
    }))

  const rows = parts.map((p, i) => {
    const leg = p.activityId === null ? undefined : stored.get(p.activityId)
    const mine = p.activityId === activity.id
    const name = p.kind === "transition" || leg === undefined || mine
      ? labels[i]
      : h("a", { href: `#/activity/${encodeURIComponent(leg.id)}` }, labels[i])
    return h("tr", { class: mine ? "current" : null, "aria-current": mine ? "true" : null },
      h("td", { class: "nowrap" }, h("span", { class: `race-dot ${kindOf(p)}`, "aria-hidden": "true" }), " ", name),
      h("td", { class: "num" }, format.duration(p.elapsedTimeInSeconds)),
      h("td", { class: "num" }, leg === undefined ? "–" : format.distance(leg.distanceInMeter)),
      h("td", { class: "num opt" }, leg === undefined || leg.movingTimeInSeconds === 0 ? "–" : format.speedOrPace(leg.averageSpeedInKmPerHour, leg.sportType)),
      h("td", { class: "num opt" }, format.duration(p.startOffsetInSeconds)))
  })

  return h("section", { class: "card race", "aria-labelledby": "race-title" },
    h("h2", { id: "race-title" }, `${raceName(legs)} · ${format.duration(total)}`),
    h("p", { class: "muted" }, `${legs.length} legs and ${parts.length - legs.length} transitions, one event: each leg is an activity of its own.`),
    bar,
    h("div", { class: "table-wrap" },
      h("table", { id: "race-parts" },
        h("caption", { class: "visually-hidden" }, "Legs and transitions of the race"),
        h("thead", null, h("tr", null,
          h("th", { scope: "col" }, "Part"), h("th", { scope: "col", class: "num" }, "Time"), h("th", { scope: "col", class: "num" }, "Distance"),
          h("th", { scope: "col", class: "num opt" }, "Pace or speed"), h("th", { scope: "col", class: "num opt" }, "From start"))),
        h("tbody", null, rows))))
}
