import { h, nextId } from "./dom.ts"
import * as format from "./format.ts"
import { SPORT_FAMILIES } from "./sports.ts"

/**
 * A filter of several sports: a button that opens the sports by family, each family with a box
 * that takes or leaves all of it. Nothing ticked is every sport. `onClose` hears the choice
 * when the list closes with another choice than it opened with.
 */

export interface SportPicker {
  readonly element: HTMLElement
  /** the sports ticked, in the service's order (none: every sport) */
  readonly selected: () => Array<string>
}

const summaryOf = (chosen: ReadonlyArray<string>) =>
  chosen.length === 0 ? "All sports" : chosen.length <= 2 ? chosen.map(format.sportLabel).join(", ") : `${chosen.length} sports`

export const sportPicker = (options: {
  readonly label: string
  readonly selected: ReadonlyArray<string>
  readonly onClose?: (selected: Array<string>) => void
}): SportPicker => {
  const boxes = new Map<string, HTMLInputElement>()
  const families: Array<() => void> = []
  const labelId = nextId("sports")
  const summaryText = h("span", { id: nextId("sports"), class: "picked" })
  const selected = () => [...boxes].filter(([, box]) => box.checked).map(([sport]) => sport)
  const refresh = () => {
    summaryText.textContent = summaryOf(selected())
    families.forEach((f) => f())
  }

  const groups = SPORT_FAMILIES.map((family) => {
    const members = family.sports.map((sport) => {
      const box = h("input", { type: "checkbox", name: "sport", value: sport, checked: options.selected.includes(sport), onchange: refresh })
      boxes.set(sport, box)
      return h("label", null, box, ` ${format.sportLabel(sport)}`)
    })
    const all = h("input", {
      type: "checkbox",
      onchange: () => {
        for (const sport of family.sports) boxes.get(sport)!.checked = all.checked
        refresh()
      }
    })
    families.push(() => {
      const ticked = family.sports.filter((s) => boxes.get(s)!.checked).length
      all.checked = ticked === family.sports.length
      all.indeterminate = ticked > 0 && ticked < family.sports.length
    })
    return h("fieldset", null, h("legend", null, h("label", null, all, ` ${family.label}`)), members)
  })

  let opened = selected().join(",")
  const details = h("details", { class: "picker" },
    h("summary", { "aria-labelledby": `${labelId} ${summaryText.id}` }, summaryText),
    h("div", { class: "picker-panel" },
      groups,
      h("div", { class: "row end" },
        h("button", { type: "button", onclick: () => {
          boxes.forEach((box) => { box.checked = false })
          refresh()
        } }, "Clear"),
        h("button", { type: "button", onclick: () => close(true) }, "Done"))))
  const close = (focus: boolean) => {
    details.open = false
    if (focus) details.querySelector("summary")!.focus()
  }
  details.addEventListener("toggle", () => {
    const now = selected().join(",")
    if (details.open) opened = now
    else if (now !== opened) options.onClose?.(selected())
  })
  details.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && details.open) {
      e.preventDefault()
      close(true)
    }
  })
  // a click or a focus elsewhere closes it, as a select's list would; once the page is gone, the listeners go
  const outside = (e: Event) => {
    if (!details.isConnected) {
      document.removeEventListener("pointerdown", outside)
      document.removeEventListener("focusin", outside)
    } else if (details.open && e.target instanceof Node && !details.contains(e.target)) close(false)
  }
  document.addEventListener("pointerdown", outside)
  document.addEventListener("focusin", outside)
  refresh()
  const element = h("div", { class: "field" }, h("span", { class: "label", id: labelId }, options.label), details)
  return { element, selected }
}
