/**
 * The sections' menu on a narrow screen: the shell's list of sections, folded behind a button
 * and unfolded below the header as a grid, however many sections there are (a wide screen shows
 * the list as it is, the button hidden). It folds again on a choice, Escape or a click elsewhere.
 */

const button = () => document.getElementById("menu-button")
const nav = () => button()?.closest("nav") ?? null

const setOpen = (open: boolean) => {
  button()?.setAttribute("aria-expanded", String(open))
  nav()?.classList.toggle("open", open)
}

export const closeMenu = () => setOpen(false)

export const wireMenu = () => {
  const toggle = button()
  if (toggle === null) return
  toggle.addEventListener("click", () => setOpen(toggle.getAttribute("aria-expanded") !== "true"))
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && toggle.getAttribute("aria-expanded") === "true") {
      closeMenu()
      toggle.focus()
    }
  })
  document.addEventListener("pointerdown", (e) => {
    if (e.target instanceof Node && !nav()?.contains(e.target)) closeMenu()
  })
}
