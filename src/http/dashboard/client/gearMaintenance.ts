import { api, ApiError } from "./api.ts"
import { imperial } from "./config.ts"
import { confirmDialog, field, h, toast } from "./dom.ts"
import * as format from "./format.ts"
import { COMPONENT_STATUSES } from "./labels.ts"
import type { Gear } from "./types.ts"
import type { GearComponent } from "./yearTypes.ts"

/**
 * The gear page's maintenance: what is due first, then each gear's components with their use
 * since the last service and what is left of each interval; a service recorded in one click,
 * components added and removed.
 */

const failed = (error: unknown) => toast(error instanceof ApiError ? error.message : String(error), "error")
const reload = () => dispatchEvent(new HashChangeEvent("hashchange"))

const STATUS_CLASS: Record<GearComponent["status"], string> = { ok: "success", dueSoon: "queued", overdue: "failed" }

/** What is left of each interval: "1,204 km left", "12 h over", "in 30 days". */
const dueParts = (c: GearComponent): Array<string> => {
  const parts: Array<string> = []
  if (c.dueInMeter !== null) parts.push(c.dueInMeter >= 0 ? `${format.distance(c.dueInMeter)} left` : `${format.distance(-c.dueInMeter)} over`)
  if (c.dueInSeconds !== null) {
    const h = Math.round(Math.abs(c.dueInSeconds) / 3600)
    parts.push(c.dueInSeconds >= 0 ? `${format.count(h)} h left` : `${format.count(h)} h over`)
  }
  if (c.dueInDays !== null && c.dueOn !== null) {
    parts.push(c.dueInDays >= 0 ? `due ${format.calendarDate(c.dueOn)}` : `${format.plural(-c.dueInDays, "day")} over`)
  }
  return parts
}

const intervalText = (c: GearComponent) =>
  [
    c.intervalInMeter === null ? null : `${format.count(Math.round(format.toDistanceUnit(c.intervalInMeter)))} ${format.distanceUnit}`,
    c.intervalInSeconds === null ? null : `${format.count(Math.round(c.intervalInSeconds / 3600))} h`,
    c.intervalInDays === null ? null : format.plural(c.intervalInDays, "day")
  ].filter((x) => x !== null).join(" · ")

const componentPath = (c: GearComponent) => `gear/${encodeURIComponent(c.gearId)}/components/${encodeURIComponent(c.id)}`

/** A row of a component's table; on a phone a card (the cells' classes place them), its columns named where the header is hidden. */
const componentRow = (c: GearComponent) =>
  h("tr", { "data-component": c.id },
    h("td", { class: "name" }, h("strong", null, c.name), h("br"), h("small", { class: "muted" }, `every ${intervalText(c)}`)),
    h("td", { class: "due" }, h("span", { class: `badge ${STATUS_CLASS[c.status]}` }, COMPONENT_STATUSES[c.status]), h("br"), h("small", null, dueParts(c).join(" · "))),
    h("td", { class: "num used" }, h("span", { class: "phone-only muted" }, "Used "), format.distance(c.use.distanceInMeter), h("br"),
      h("small", { class: "muted" }, `${format.count(Math.round(c.use.movingTimeInSeconds / 3600))} h · ${format.plural(c.use.activities, "activity", "activities")}`)),
    h("td", { class: "since" }, h("span", { class: "phone-only muted" }, "Since "), format.calendarDate(c.use.since), h("br"), h("small", { class: "muted" }, c.lastServiceOn === null ? "installed" : "serviced")),
    h("td", { class: "acts" }, h("div", { class: "actions" },
      h("button", {
        type: "button",
        class: "link",
        "aria-label": `Serviced today: ${c.name}`,
        onclick: async () => {
          try {
            await api(`${componentPath(c)}/service`, { method: "POST" })
            toast(`${c.name}: service recorded.`)
            reload()
          } catch (error) {
            failed(error)
          }
        }
      }, "Serviced today"),
      h("button", {
        type: "button",
        class: "link",
        "aria-label": `Remove ${c.name}`,
        onclick: async () => {
          if (!(await confirmDialog(`Remove “${c.name}” and its service records?`, "Remove"))) return
          try {
            await api(componentPath(c), { method: "DELETE" })
            reload()
          } catch (error) {
            failed(error)
          }
        }
      }, "Remove"))))

const addForm = (gear: ReadonlyArray<Gear>) => {
  const unit = imperial ? "mi" : "km"
  const which = h("select", { name: "gear", required: true }, gear.map((g) => h("option", { value: g.id }, g.name)))
  const name = h("input", { name: "name", required: true, maxlength: 255, placeholder: "Chain, tyres, shoes…" })
  const installed = h("input", { type: "date", name: "installedOn", value: new Date().toLocaleDateString("sv-SE") })
  const distance = h("input", { type: "number", name: "distance", min: 1, step: "any", inputmode: "decimal" })
  const time = h("input", { type: "number", name: "hours", min: 1, step: 1, inputmode: "numeric" })
  const every = h("input", { type: "number", name: "days", min: 1, step: 1, inputmode: "numeric" })
  const number = (input: HTMLInputElement) => (input.value === "" ? undefined : Number(input.value))
  return h("form", {
    class: "filters",
    id: "add-component",
    onsubmit: async (e: Event) => {
      e.preventDefault()
      const km = number(distance)
      const hrs = number(time)
      try {
        await api(`gear/${encodeURIComponent(which.value)}/components`, {
          method: "POST",
          json: {
            name: name.value,
            ...(installed.value === "" ? {} : { installedOn: installed.value }),
            ...(km === undefined ? {} : { intervalInMeter: Math.round(km / format.toDistanceUnit(1)) }),
            ...(hrs === undefined ? {} : { intervalInSeconds: Math.round(hrs * 3600) }),
            ...(number(every) === undefined ? {} : { intervalInDays: number(every) })
          }
        })
        toast("Component added.")
        reload()
      } catch (error) {
        failed(error)
      }
    }
  }, field("Gear", which), field("Component", name), field("Installed on", installed),
  field(`Every (${unit})`, distance), field("or every (h moving)", time), field("or every (days)", every),
  h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Add component")))
}

/** The maintenance section of the gear page, for `gear` (active first, as the list comes). */
export const maintenanceSection = async (gear: ReadonlyArray<Gear>): Promise<HTMLElement> => {
  const lists = await Promise.all(gear.map((g) => api<{ components: ReadonlyArray<GearComponent> }>(`gear/${encodeURIComponent(g.id)}/components`)))
  const of = gear.map((g, i) => ({ gear: g, components: lists[i]!.components }))
  const due = of.flatMap(({ gear: g, components }) => components.filter((c) => c.status !== "ok").map((c) => ({ g, c })))
    .sort((a, b) => (a.c.status === b.c.status ? 0 : a.c.status === "overdue" ? -1 : 1))
  return h("section", { id: "maintenance" },
    h("h2", null, "Maintenance"),
    gear.length === 0 ? h("p", { class: "empty" }, "Add gear first, then its components.") : null,
    due.length === 0
      ? (of.some((x) => x.components.length > 0) ? h("p", { class: "ok", id: "nothing-due" }, "Nothing is due.") : null)
      : h("ul", { class: "due-list", id: "due", "aria-label": "Due for a service" }, due.map(({ g, c }) =>
        h("li", { class: c.status },
          h("span", { class: `badge ${STATUS_CLASS[c.status]}` }, COMPONENT_STATUSES[c.status]), " ",
          h("strong", null, c.name), ` of ${g.name}: `, dueParts(c).join(" · ")))),
    of.filter((x) => x.components.length > 0).map(({ gear: g, components }) =>
      h("div", { class: "table-wrap gear-components", tabindex: 0 },
        h("table", { "data-gear": g.id },
          h("caption", null, g.name, g.isRetired ? h("span", { class: "muted" }, " (retired)") : null),
          h("thead", null, h("tr", null,
            h("th", { scope: "col" }, "Component"), h("th", { scope: "col" }, "Due"), h("th", { scope: "col", class: "num" }, "Used"),
            h("th", { scope: "col" }, "Since"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
          h("tbody", null, components.map(componentRow))))),
    gear.length === 0 ? null : addForm(gear))
}
