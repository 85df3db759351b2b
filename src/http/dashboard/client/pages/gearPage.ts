import { ApiError, call } from "../api.ts"
import { imperial } from "../config.ts"
import { confirmDialog, field, h, replace, toast } from "../dom.ts"
import * as format from "../format.ts"
import { chart, css } from "../chart.ts"
import { gearMake } from "../labels.ts"
import { maintenanceSection } from "../gearMaintenance.ts"
import type { Page } from "../main.ts"
import type { Gear } from "../types.ts"

/** Gear with its distance and its components' maintenance, and the weight history as a chart with add and delete. */

const failed = (error: unknown) => toast(error instanceof ApiError ? error.message : String(error), "error")
const reload = () => dispatchEvent(new HashChangeEvent("hashchange"))

export const gearPage: Page = async (main) => {
  const [{ gear }, { weights }] = await Promise.all([
    call("gear.list"),
    call("athlete.weights")
  ])
  const unit = imperial ? "lb" : "kg"
  const maintenance = await maintenanceSection(gear)
  const cleanups: Array<() => void> = []

  const change = async (g: Gear, payload: { name?: string; isRetired?: boolean }) => {
    try {
      await call("gear.update", { path: { gearId: g.id }, payload })
      reload()
    } catch (error) {
      failed(error)
    }
  }
  const gearActions = (g: Gear) => {
    const rename = h("input", { name: "name", value: g.name, required: true, "aria-label": `New name of ${g.name}` })
    return h("div", { class: "actions" },
      g.type === "custom"
        ? h("details", null, h("summary", { class: "link" }, "Rename"),
          h("form", { class: "inline", onsubmit: (e: Event) => {
            e.preventDefault()
            void change(g, { name: rename.value })
          } }, rename, h("button", { type: "submit" }, "Save")))
        : null,
      h("button", { type: "button", class: "link", onclick: () => change(g, { isRetired: !g.isRetired }) }, g.isRetired ? "Put back in use" : "Retire"),
      g.type === "custom"
        ? h("button", { type: "button", class: "link", onclick: async () => {
          if (!(await confirmDialog(`Delete “${g.name}”? Its ${format.plural(g.numberOfActivities, "activity", "activities")} will have no gear.`, "Delete"))) return
          try {
            await call("gear.delete", { path: { gearId: g.id } })
            reload()
          } catch (error) {
            failed(error)
          }
        } }, "Delete")
        : null)
  }
  const gearTable = gear.length === 0
    ? h("p", { class: "empty" }, "No gear yet.")
    : h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "gear-list" },
      h("caption", { class: "visually-hidden" }, "Gear"),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Name"), h("th", { scope: "col", class: "opt" }, "Kind & make"),
        h("th", { scope: "col", class: "num" }, "Distance"), h("th", { scope: "col", class: "num opt" }, "Activities"), h("th", { scope: "col", class: "opt" }, "State"),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
      h("tbody", null, gear.map((g) => h("tr", null,
        // a phone has no room for the state's column: the name says it when it is retired
        h("td", { class: "name" }, h("a", { href: `#/gearItem/${encodeURIComponent(g.id)}` }, g.name),
          g.isRetired ? h("span", { class: "muted phone-only" }, " (retired)") : null,
          h("span", { class: "muted phone-only gear-make" }, gearMake(g))), h("td", { class: "opt" }, gearMake(g)),
        h("td", { class: "num" }, format.distance(g.distanceInMeter)), h("td", { class: "num opt" }, format.count(g.numberOfActivities)),
        h("td", { class: "opt" }, g.isRetired ? "retired" : "in use"),
        h("td", null, gearActions(g)))))))
  const newGear = h("input", { name: "name", required: true, maxlength: 255, placeholder: "Road bike, trail shoes…" })
  const addGear = h("form", {
    class: "filters single",
    id: "add-gear",
    onsubmit: async (e: Event) => {
      e.preventDefault()
      try {
        await call("gear.create", { payload: { name: newGear.value } })
        toast("Gear added.", "ok", { next: true })
        reload()
      } catch (error) {
        failed(error)
      }
    }
  }, field("New gear", newGear), h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Add gear")))

  // weights, newest first in the table, oldest first in the chart
  const sorted = [...weights].sort((x, y) => x.on.localeCompare(y.on))
  const weightLegend = h("div", { class: "chart-legend" })
  const chartBox = h("div", { class: "chart", id: "weight-chart", role: "img", "aria-label": `Weight history in ${unit}` },
    h("div", { class: "chart-head" }, h("h3", null, `Weight (${unit})`), weightLegend))
  const on = h("input", { type: "date", name: "on", required: true, value: new Date().toLocaleDateString("sv-SE") })
  const value = h("input", { type: "number", name: "weight", required: true, min: 1, max: 1000, step: 0.1, inputmode: "decimal" })
  const addWeight = h("form", {
    class: "filters",
    id: "add-weight",
    onsubmit: async (e: Event) => {
      e.preventDefault()
      try {
        await call("athlete.saveWeight", { payload: { on: on.value, weight: Number(value.value) } })
        toast("Weight saved.", "ok", { next: true })
        reload()
      } catch (error) {
        failed(error)
      }
    }
  }, field("Date", on), field(`Weight (${unit})`, value), h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Add")))

  const weightRows = [...sorted].reverse().map((w) => h("tr", null,
    h("td", null, format.calendarDate(w.on)),
    h("td", { class: "num" }, `${w.weight.toLocaleString()} ${unit}`),
    h("td", null, h("button", {
      type: "button",
      class: "link",
      "aria-label": `Delete the weight of ${format.calendarDate(w.on)}`,
      onclick: async () => {
        if (!(await confirmDialog(`Delete the weight of ${format.calendarDate(w.on)}?`, "Delete"))) return
        try {
          await call("athlete.deleteWeight", { path: { on: w.on } })
          reload()
        } catch (error) {
          failed(error)
        }
      }
    }, "Delete"))))

  replace(main,
    h("h1", null, "Gear & weight"),
    h("section", null, h("h2", null, "Gear"), addGear, gearTable),
    maintenance,
    h("section", null,
      h("h2", null, "Weight"),
      sorted.length > 1 ? chartBox : null,
      addWeight,
      sorted.length === 0
        ? h("p", { class: "empty" }, "No weight recorded yet.")
        : h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "weights" },
          h("caption", { class: "visually-hidden" }, "Weights"),
          h("thead", null, h("tr", null, h("th", { scope: "col" }, "Date"), h("th", { scope: "col", class: "num" }, "Weight"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
          h("tbody", null, weightRows)))))

  if (sorted.length > 1) {
    const xs = sorted.map((w) => Date.parse(`${w.on}T12:00:00`) / 1000)
    const handle = chart(chartBox, {
      legend: weightLegend,
      series: [
        { label: "Date", value: (_u, t) => (t === null || t === undefined ? "–" : format.calendarDate(new Date(t * 1000).toLocaleDateString("sv-SE"))) },
        { label: "Weight", stroke: css("--accent"), width: 2, points: { show: true }, value: (_u, v) => (v === null || v === undefined ? "–" : `${v.toLocaleString()} ${unit}`) }
      ]
    }, [xs, sorted.map((w) => w.weight)])
    cleanups.push(handle.remove)
  }
  return () => cleanups.forEach((c) => c())
}
