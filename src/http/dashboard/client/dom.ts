/**
 * A few lines instead of a framework: `h` builds elements, and every string child becomes a
 * text node, so text from files or users is always shown as text, never parsed as HTML.
 */

export type Child = Node | string | number | null | undefined | false | ReadonlyArray<Child>
type AttrValue = string | number | boolean | null | undefined | ((event: any) => void)
export type Attrs = Record<string, AttrValue>

const append = (parent: Node, child: Child): void => {
  if (child === null || child === undefined || child === false) return
  if (Array.isArray(child)) for (const c of child) append(parent, c)
  else if (child instanceof Node) parent.appendChild(child)
  else parent.appendChild(document.createTextNode(String(child)))
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: ReadonlyArray<Child>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === "function") el.addEventListener(name.slice(2).toLowerCase(), value)
    else if (name === "value" && "value" in el) (el as HTMLInputElement).value = String(value)
    else el.setAttribute(name, value === true ? "" : String(value))
  }
  append(el, children)
  return el
}

export const replace = (parent: Element, ...children: ReadonlyArray<Child>): void => {
  parent.replaceChildren()
  append(parent, children)
}

let uid = 0
/** A fresh element id, to tie a label to its control. */
export const nextId = (prefix: string) => `${prefix}-${++uid}`

/** A labelled form field. */
export const field = (label: string, control: HTMLElement, hint?: string): HTMLElement => {
  const id = control.id || nextId("f")
  control.id = id
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint === undefined ? null : h("small", { class: "muted" }, hint))
}

/** A confirmation in a modal dialog; resolves true when confirmed. */
export const confirmDialog = (question: string, confirmLabel: string): Promise<boolean> =>
  new Promise((resolve) => {
    const dialog = h("dialog", { class: "card", "aria-labelledby": "confirm-title" },
      h("form", { method: "dialog", class: "stack" },
        h("p", { id: "confirm-title" }, question),
        h("div", { class: "row end" },
          h("button", { value: "cancel", type: "submit" }, "Cancel"),
          h("button", { value: "ok", type: "submit", class: "danger" }, confirmLabel))))
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "ok")
      dialog.remove()
    })
    document.body.appendChild(dialog)
    dialog.showModal()
  })

/**
 * A short message announced to screen readers. It belongs to the page it is shown on and goes
 * when the athlete leaves it, unless `next` says it is about the page being opened (a save
 * that redraws the page, a deletion that leads to the list).
 */
export const toast = (message: string, kind: "ok" | "error" = "ok", options: { readonly next?: boolean } = {}): void => {
  let region = document.getElementById("toasts")
  if (region === null) {
    region = h("div", { id: "toasts", role: "status", "aria-live": "polite" })
    document.body.appendChild(region)
  }
  const item = h("p", { class: `toast ${kind}`, "data-next": options.next === true }, message)
  region.appendChild(item)
  while (region.children.length > 3) region.firstElementChild?.remove()
  setTimeout(() => item.remove(), 4000)
}

/** On each navigation: the messages of the page left go, those meant for the page opened stay (once). */
export const leaveToasts = (): void => {
  for (const item of [...(document.getElementById("toasts")?.children ?? [])]) {
    if (item instanceof HTMLElement && item.dataset["next"] !== undefined) delete item.dataset["next"]
    else item.remove()
  }
}
