import type { ShellConfig } from "../pages.ts"

/** What the daemon tells the page (a data attribute of the shell, never an inline script). */
export const config: ShellConfig = JSON.parse(document.body.dataset["config"] ?? "{}")

export const imperial = config.unitSystem === "imperial"
