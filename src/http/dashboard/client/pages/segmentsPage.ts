import { call } from "../api.ts"
import { h, replace } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import { effortTime, grade } from "../segmentFormat.ts"

/**
 * The athlete's segments, searchable by name: each with its distance, grade, effort count, best
 * and last effort, leading to its page. The search asks the API (its `filters[name]`) as the
 * athlete types, and keeps the words typed in the address.
 */

export const segmentsPage: Page = async (main, params) => {
  const search = h("input", { type: "search", name: "name", value: params.get("name") ?? "", placeholder: "Search by name", "aria-label": "Search segments by name" })
  const body = h("div", { id: "segment-list" })
  replace(main,
    h("h1", null, "Segments"),
    h("p", { class: "muted" }, "Make a segment from a stretch or a climb on an activity's page; every activity that passes it is timed on it."),
    h("form", { role: "search", class: "row", onsubmit: (e: Event) => e.preventDefault() }, search),
    body)

  let asked = 0
  const show = async () => {
    const mine = ++asked
    const name = search.value.trim()
    const { segments } = await call("segments.list", { query: { "filters[name]": name === "" ? undefined : name } })
    if (mine !== asked) return
    history.replaceState(null, "", name === "" ? "#/segments" : `#/segments?name=${encodeURIComponent(name)}`)
    replace(body, segments.length === 0
      ? h("p", { class: "muted" }, name === "" ? "No segment yet." : `No segment named like “${name}”.`)
      : h("div", { class: "table-wrap", tabindex: 0, role: "region", "aria-label": "Segments" }, h("table", null,
        h("thead", null, h("tr", null,
          h("th", { scope: "col" }, "Name"),
          h("th", { scope: "col", class: "num" }, "Distance"),
          h("th", { scope: "col", class: "num" }, "Grade"),
          h("th", { scope: "col", class: "num" }, "Efforts"),
          h("th", { scope: "col", class: "num" }, "Best"),
          h("th", { scope: "col", class: "num" }, "Last"))),
        h("tbody", null, segments.map((s) =>
          h("tr", null,
            h("td", null, h("a", { href: `#/segment/${encodeURIComponent(s.id)}` }, s.name),
              s.matching.status === "matching" ? h("small", { class: "muted" }, ` (matching ${s.matching.checkedActivities}/${s.matching.totalActivities})`) : null),
            h("td", { class: "num" }, format.distance(s.distanceInMeter)),
            h("td", { class: "num" }, grade(s.averageGrade)),
            h("td", { class: "num" }, format.count(s.effortCount)),
            h("td", { class: "num" }, effortTime(s.bestEffort)),
            h("td", { class: "num" }, effortTime(s.lastEffort))))))))
  }
  search.addEventListener("input", () => void show())
  await show()
}
