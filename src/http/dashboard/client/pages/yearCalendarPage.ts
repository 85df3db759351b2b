import { call } from "../api.ts"
import { config } from "../config.ts"
import { field, h, replace } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import { paintSport } from "../palette.ts"
import type { CalendarDay, CalendarWeek, StreakPair } from "../yearTypes.ts"
import { days, hours, monthAfter, monthName, monthOnly, weekdayName, weeks } from "../yearFormat.ts"

/**
 * A month at a glance: weeks from Monday, each day's activities, each week's totals, the
 * month's, and the streaks; previous and next month. On a phone the weeks become a list of
 * the days that hold activities.
 */

const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)

const streakCard = (label: string, pair: StreakPair, unit: (n: number) => string) =>
  h("div", { class: "stat" },
    h("dt", null, label),
    h("dd", null, pair.current === null ? "none" : unit(pair.current.length)),
    h("dd", { class: "muted small" }, pair.longest === null ? "" : `longest ${unit(pair.longest.length)}, ${format.calendarDate(pair.longest.firstDay)} – ${format.calendarDate(pair.longest.lastDay)}`))

const dayCell = (on: string, day: CalendarDay | undefined, today: string) => {
  const date = new Date(`${on}T12:00:00`)
  const label = date.toLocaleDateString(undefined, { weekday: "long", day: "numeric", month: "long" })
  const classes = ["cal-day", day === undefined ? "outside" : day.activities.length === 0 ? "rest" : "active", on === today ? "today" : ""]
  return h("li", { class: classes.join(" ").trim(), "data-on": on },
    h("span", { class: "cal-date" }, h("span", { "aria-hidden": "true" }, String(date.getDate())), h("span", { class: "visually-hidden" }, label),
      h("span", { class: "cal-weekday", "aria-hidden": "true" }, date.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short" }))),
    day === undefined || day.activities.length === 0
      ? null
      : h("ul", { class: "cal-acts" }, day.activities.map((a) =>
        h("li", null, paintSport(h("a", { href: `#/activity/${encodeURIComponent(a.id)}`, title: a.name },
          h("span", { class: "cal-sport" }, format.sportLabel(a.sportType)),
          " ",
          h("span", { class: "cal-figure" }, a.distanceInMeter > 0 ? format.distance(a.distanceInMeter) : format.duration(a.movingTimeInSeconds))), a.sportType)))))
}

/** "Oct", the year read out too (and shown on wider screens). */
const monthLink = (month: string) => [monthOnly(month), h("span", { class: "wide-only" }, ` ${month.slice(0, 4)}`)]

const weekTotal = (week: CalendarWeek) =>
  h("div", { class: "cal-week-total" },
    h("span", { class: "cal-week-name" }, `Week ${Number(week.week.slice(6))}`),
    week.count === 0
      ? h("span", { class: "muted" }, "rest")
      : [
        h("span", null, format.distance(week.distanceInMeter)),
        h("span", null, hours(week.movingTimeInSeconds)),
        h("span", { class: "muted" }, format.plural(week.count, "activity", "activities"))
      ])

export const yearCalendarPage: Page = async (main, params) => {
  const sport = params.get("sport") ?? ""
  const asked = /^\d{4}-\d{2}$/.test(params.get("month") ?? "") ? params.get("month")! : undefined
  const [calendar, streaks, { totals: years }] = await Promise.all([
    call("athleteYear.calendar", { query: { "filters[month]": asked, "filters[sportType]": sport === "" ? undefined : sport } }),
    call("athleteYear.streaks"),
    call("stats.totals", { query: { "filters[period]": "year" } })
  ])
  const month = calendar.month
  const link = (m: string) => `#/calendar?${new URLSearchParams({ month: m, ...(sport === "" ? {} : { sport }) })}`
  const byDate = new Map(calendar.days.map((d) => [d.on, d]))
  const streakSet = sport === "" ? streaks.overall : streaks.sportTypes.find((s) => s.sportType === sport) ?? null
  const { totals } = calendar

  const sportSelect = h("select", {
    name: "sport",
    onchange: (e: Event) => {
      const value = (e.target as HTMLSelectElement).value
      location.hash = `#/calendar?${new URLSearchParams({ month, ...(value === "" ? {} : { sport: value }) })}`
    }
  }, h("option", { value: "" }, "All sports"), config.sportTypes.map((s) => h("option", { value: s, selected: s === sport }, format.sportLabel(s))))
  // a jump to any month, or to the same month of a year that has activities
  const monthInput = h("input", {
    type: "month",
    name: "month",
    value: month,
    min: "1900-01",
    onchange: (e: Event) => {
      const value = (e.target as HTMLInputElement).value
      if (/^\d{4}-\d{2}$/.test(value)) location.hash = link(value)
    }
  })
  const activeYears = [...new Set([...years.map((t) => t.period), month.slice(0, 4)])].sort().reverse()
  const yearSelect = h("select", {
    name: "year",
    onchange: (e: Event) => { location.hash = link(`${(e.target as HTMLSelectElement).value}-${month.slice(5)}`) }
  }, activeYears.map((y) => h("option", { value: y, selected: y === month.slice(0, 4) }, y)))

  const grid = h("section", { class: "calendar", id: "calendar", "aria-labelledby": "calendar-month" },
    h("div", { class: "cal-head", "aria-hidden": "true" },
      [1, 2, 3, 4, 5, 6, 7].map((d) => h("span", null, weekdayName(d, "short"))), h("span", null, "Week")),
    h("ol", { class: "cal-weeks" }, calendar.weeks.map((week) =>
      h("li", { class: "cal-week" },
        h("ol", { class: "cal-days", "aria-label": `Week ${Number(week.week.slice(6))}` },
          Array.from({ length: 7 }, (_, i) => addDays(week.firstDay, i)).map((on) => dayCell(on, byDate.get(on), streaks.today))),
        weekTotal(week)))))

  replace(main,
    h("div", { class: "page-head" },
      h("h1", { id: "calendar-month" }, monthName(month)),
      h("nav", { class: "month-nav", "aria-label": "Months" },
        h("a", { class: "button", href: link(monthAfter(month, -1)), rel: "prev" }, "← ", monthLink(monthAfter(month, -1))),
        h("a", { class: "button", href: link(streaks.today.slice(0, 7)) }, "This month"),
        h("a", { class: "button", href: link(monthAfter(month, 1)), rel: "next" }, monthLink(monthAfter(month, 1)), " →"))),
    h("form", { class: "filters compact", onsubmit: (e: Event) => e.preventDefault() },
      field("Sport", sportSelect), field("Month", monthInput), field("Year", yearSelect)),
    h("dl", { class: "stats", id: "month-totals" },
      h("div", { class: "stat" }, h("dt", null, "Activities"), h("dd", null, format.count(totals.count))),
      h("div", { class: "stat" }, h("dt", null, "Distance"), h("dd", null, format.distance(totals.distanceInMeter))),
      h("div", { class: "stat" }, h("dt", null, "Moving time"), h("dd", null, hours(totals.movingTimeInSeconds))),
      h("div", { class: "stat" }, h("dt", null, "Elevation"), h("dd", null, format.elevation(totals.elevationInMeter))),
      h("div", { class: "stat" }, h("dt", null, "Active days"), h("dd", null, format.count(totals.activeDays)))),
    grid,
    h("section", { id: "streaks" },
      h("h2", null, sport === "" ? "Streaks" : `Streaks · ${format.sportLabel(sport)}`),
      streakSet === null
        ? h("p", { class: "empty" }, "No activity of this sport yet.")
        : h("dl", { class: "stats" }, streakCard("Days in a row", streakSet.days, days), streakCard("Weeks in a row", streakSet.weeks, weeks))))
}
