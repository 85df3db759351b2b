import { h } from "./dom.ts"

/**
 * Newer and older pages of a list, newest first: a way to a page is offered only where there
 * is one, and a page past the last (rows removed meanwhile, an old link) is replaced by the last.
 */

export interface Paging {
  readonly page: number
  readonly totalPages: number
}

/** The page to show instead of `page` (the last one when it is past it), or null when `page` is fine. */
export const pageInstead = ({ page, totalPages }: Paging): number | null => (page > Math.max(totalPages, 1) ? Math.max(totalPages, 1) : null)

export const pager = (label: string, paging: Paging, summary: string, go: (page: number) => void): HTMLElement => {
  const { page, totalPages } = paging
  return h("nav", { class: "pager", "aria-label": label },
    page > 1 ? h("button", { type: "button", onclick: () => go(page - 1) }, "← Newer") : h("span"),
    h("span", { class: "muted" }, totalPages > 1 ? `Page ${page} of ${totalPages} · ${summary}` : summary),
    page < totalPages ? h("button", { type: "button", onclick: () => go(page + 1) }, "Older →") : h("span"))
}
