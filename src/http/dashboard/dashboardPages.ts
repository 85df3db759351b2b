/**
 * The dashboard's pages, listed once: the shell's menu is drawn from them (pages.ts) and the
 * browser's router opens them (client/main.ts). The address after `#/` names a page; a page
 * `in` a section is reached from it (an activity from the list) and marks it as the current one.
 * The menu shows a page's `label`, or its title.
 */
export const DASHBOARD_PAGES = {
  activities: { title: "Activities", menu: true },
  activity: { title: "Activity", menu: false, in: "activities" },
  import: { title: "Import", menu: true },
  stats: { title: "Statistics", menu: true },
  training: { title: "Training", menu: true },
  calendar: { title: "Calendar", menu: true },
  milestones: { title: "Milestones", menu: true },
  year: { title: "Year in review", label: "Year", menu: true },
  segments: { title: "Segments", menu: true },
  segment: { title: "Segment", menu: false, in: "segments" },
  gear: { title: "Gear & weight", menu: true },
  gearItem: { title: "Gear", menu: false, in: "gear" },
  privacy: { title: "Privacy & sharing", label: "Privacy", menu: true },
  system: { title: "System", menu: true }
} as const satisfies Record<string, { readonly title: string; readonly label?: string; readonly menu: boolean; readonly in?: string }>

export type PageName = keyof typeof DASHBOARD_PAGES

/** The page opened when the address names none. */
export const HOME_PAGE: PageName = "activities"

/** The section a page marks as current in the menu: its own, or the one it is in. */
export const sectionOf = (name: PageName): PageName => {
  const page = DASHBOARD_PAGES[name]
  return "in" in page ? page.in : name
}

/** What the menu calls a page. */
export const menuLabelOf = (name: PageName): string => {
  const page = DASHBOARD_PAGES[name]
  return "label" in page ? page.label : page.title
}
