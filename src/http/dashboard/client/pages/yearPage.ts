import { call } from "../api.ts"
import { h, replace, toast } from "../dom.ts"
import * as format from "../format.ts"
import { DISCIPLINES } from "../labels.ts"
import type { Page } from "../main.ts"
import { paintSport } from "../palette.ts"
import { MEASURES, totalsChart } from "../totalsChart.ts"
import { change, countryName, days, hourRange, hours, monthName, monthOnly, weekdayName, weeks } from "../yearFormat.ts"
import type { YearHighlight, YearInReview, YearTotals } from "../yearTypes.ts"

/**
 * The year in review, to look back on and to share: the totals against the year before, the
 * months, the sports, the highlights (longest, biggest climb, busiest month and weekday, usual
 * start, longest streak, commutes and the CO₂ they saved, countries) and the records set.
 */

const heroStat = (label: string, value: string, now: number, before: number) => {
  const delta = change(now, before)
  return h("div", { class: "hero-stat" },
    h("dt", null, label),
    h("dd", null, value),
    delta === null ? null : h("dd", { class: `delta ${now >= before ? "up" : "down"}` }, `${delta} `, h("span", { class: "visually-hidden" }, "on the year before")))
}

const highlight = (title: string, body: ReadonlyArray<Node | string | null>, id?: string) =>
  h("article", { class: "highlight", ...(id === undefined ? {} : { id }) }, h("h3", null, title), body)

const activityLine = (a: YearHighlight, figure: string) => [
  h("p", { class: "big-figure" }, figure),
  h("p", null, h("a", { href: `#/activity/${encodeURIComponent(a.id)}` }, a.name)),
  h("p", { class: "muted small" }, `${format.sportLabel(a.sportType)} · ${format.localDateTime(a.startDateLocal, "medium")}`)
]

/**
 * Bars as a list: each label with its value and a bar of its share of the largest, in its sport's
 * colour where it has one; values short enough stay beside their bars on a phone.
 */
const barList = (id: string, label: string, items: ReadonlyArray<{ readonly label: string; readonly value: number; readonly text: string; readonly sportType?: string }>) => {
  const max = Math.max(1, ...items.map((i) => i.value))
  const short = items.every((i) => i.text.length <= 14)
  return h("ul", { class: short ? "bars short" : "bars", id, "aria-label": label }, items.map((item) => {
    const fill = h("span", { class: "bar-fill" })
    if (item.sportType !== undefined) paintSport(fill, item.sportType)
    // through the CSSOM: the page's policy refuses style attributes
    fill.style.width = `${(item.value / max) * 100}%`
    return h("li", null,
      h("span", { class: "bar-label" }, item.label),
      h("span", { class: "bar-track", "aria-hidden": "true" }, fill),
      h("span", { class: "bar-value" }, item.text))
  }))
}

const summaryOf = (r: YearInReview) => {
  const t = r.totals
  const lines = [
    `My ${r.year}: ${format.plural(t.count, "activity", "activities")}, ${format.distance(t.distanceInMeter)}, ${hours(t.movingTimeInSeconds)} moving, ${format.elevation(t.elevationInMeter)} climbed, ${days(t.activeDays)} active.`,
    r.longestActivity === null ? null : `Longest: ${r.longestActivity.name} (${format.distance(r.longestActivity.distanceInMeter)}).`,
    r.longestStreak.days === null ? null : `Longest streak: ${days(r.longestStreak.days.length)} in a row.`,
    r.commutes.count === 0 ? null : `${format.plural(r.commutes.count, "commute")}, ${format.distance(r.commutes.distanceInMeter)}: ${r.commutes.co2SavedInKg.toLocaleString()} kg of CO₂ a car would have emitted.`,
    r.countries.length === 0 ? null : `Countries: ${r.countries.map((c) => countryName(c.countryCode)).join(", ")}.`,
    r.records.length === 0 ? null : `Records: ${r.records.map((x) => `${x.name} ${DISCIPLINES[x.discipline]} ${format.duration(x.elapsedTimeInSeconds)}`).join(", ")}.`
  ]
  return lines.filter((l) => l !== null).join("\n")
}

const totalsChanges = (now: YearTotals, before: YearTotals) => [
  heroStat("Activities", format.count(now.count), now.count, before.count),
  heroStat("Distance", format.distance(now.distanceInMeter), now.distanceInMeter, before.distanceInMeter),
  heroStat("Moving time", `${format.count(Math.round(now.movingTimeInSeconds / 3600))} h`, now.movingTimeInSeconds, before.movingTimeInSeconds),
  heroStat("Elevation", format.elevation(now.elevationInMeter), now.elevationInMeter, before.elevationInMeter),
  heroStat("Active days", format.count(now.activeDays), now.activeDays, before.activeDays),
  heroStat("Calories", `${format.count(now.calories)} kcal`, now.calories, before.calories)
]

export const yearPage: Page = async (main, params) => {
  const asked = /^\d{4}$/.test(params.get("year") ?? "") ? params.get("year")! : undefined
  // each month's totals per sport, for the chart: at once when the year is known, else once the review says which
  const monthsOf = (y: string) =>
    call("stats.totals", { query: { "filters[period]": "month", "filters[from]": `${y}-01-01`, "filters[to]": `${y}-12-31` } })
  const [review, { totals }, asMonths] = await Promise.all([
    call("athleteYear.yearInReview", { query: { "filters[year]": asked } }),
    call("stats.totals", { query: { "filters[period]": "year" } }),
    asked === undefined ? null : monthsOf(asked)
  ])
  const monthTotals = (asMonths ?? await monthsOf(String(review.year))).totals
  const years = [...new Set([...totals.map((t) => t.period), String(review.year)])].sort().reverse()
  const { year } = review
  const cleanups: Array<() => void> = []
  const summary = summaryOf(review)

  const yearSelect = h("select", {
    name: "year",
    "aria-label": "Year",
    onchange: (e: Event) => { location.hash = `#/year?year=${(e.target as HTMLSelectElement).value}` }
  }, years.map((y) => h("option", { value: y, selected: y === String(year) }, y)))

  const monthsBox = h("div", { class: "chart", id: "year-months", role: "img", "aria-label": `Distance per month of ${year} by sport` },
    h("div", { class: "chart-head" }, h("h3", null, MEASURES.distance.label)))
  const monthsLegend = h("div", { class: "legend-below" })
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(summary)
      toast("Summary copied.")
    } catch {
      const text = document.getElementById("year-summary") as HTMLTextAreaElement | null
      text?.select()
      toast("Select the summary and copy it.")
    }
  }

  replace(main,
    h("header", { class: "year-hero", id: "year-hero" },
      h("p", { class: "eyebrow" }, "Year in review"),
      h("div", { class: "page-head" },
        h("h1", null, String(year)),
        h("nav", { class: "month-nav", "aria-label": "Years" },
          h("a", { class: "button", href: `#/year?year=${year - 1}`, rel: "prev" }, `← ${year - 1}`),
          yearSelect,
          h("a", { class: "button", href: `#/year?year=${year + 1}`, rel: "next" }, `${year + 1} →`))),
      review.totals.count === 0
        ? h("p", { class: "empty" }, `No activity in ${year}.`)
        : h("dl", { class: "hero-stats", id: "year-totals" }, totalsChanges(review.totals, review.previousYear.totals)),
      review.previousYear.totals.count === 0 ? null : h("p", { class: "muted small" }, `Changes on ${review.previousYear.year}.`)),
    review.totals.count === 0
      ? null
      : [
        h("section", null, h("h2", null, "Month by month"), monthsBox, monthsLegend),
        h("section", { id: "year-highlights" },
          h("h2", null, "Highlights"),
          h("div", { class: "highlights" },
            review.longestActivity === null ? null : highlight("Longest activity", activityLine(review.longestActivity, format.distance(review.longestActivity.distanceInMeter))),
            review.biggestClimb === null ? null : highlight("Biggest climb", activityLine(review.biggestClimb, format.elevation(review.biggestClimb.elevationInMeter))),
            review.busiestMonth === null ? null : highlight("Busiest month", [
              h("p", { class: "big-figure" }, monthName(review.busiestMonth.month, "long")),
              h("p", { class: "muted small" }, `${hours(review.busiestMonth.movingTimeInSeconds)} · ${format.distance(review.busiestMonth.distanceInMeter)} · ${format.plural(review.busiestMonth.count, "activity", "activities")}`)
            ]),
            review.busiestWeekday === null ? null : highlight("Favourite day", [
              h("p", { class: "big-figure" }, weekdayName(review.busiestWeekday.weekday)),
              h("p", { class: "muted small" }, `${hours(review.busiestWeekday.movingTimeInSeconds)} · ${format.plural(review.busiestWeekday.count, "activity", "activities")}`)
            ]),
            review.usualStartHour === null ? null : highlight("Usual start", [
              h("p", { class: "big-figure" }, hourRange(review.usualStartHour.hour)),
              h("p", { class: "muted small" }, `${format.plural(review.usualStartHour.count, "activity", "activities")} started then`)
            ]),
            highlight("Longest streak", [
              h("p", { class: "big-figure" }, review.longestStreak.days === null ? "–" : days(review.longestStreak.days.length)),
              review.longestStreak.days === null ? null : h("p", { class: "muted small" }, `${format.calendarDate(review.longestStreak.days.firstDay)} – ${format.calendarDate(review.longestStreak.days.lastDay)}`),
              review.longestStreak.weeks === null ? null : h("p", { class: "muted small" }, `and ${weeks(review.longestStreak.weeks.length)} in a row with an activity`)
            ]),
            highlight("Commutes", [
              h("p", { class: "big-figure" }, `${review.commutes.co2SavedInKg.toLocaleString()} kg CO₂`),
              h("p", { class: "muted small" }, `saved on ${format.plural(review.commutes.count, "commute")} over ${format.distance(review.commutes.distanceInMeter)}, as a car emits 0.2178 kg a km`)
            ], "year-commutes"),
            highlight("Countries", [
              h("p", { class: "big-figure" }, format.count(review.countries.length)),
              h("p", { class: "muted small" }, review.countries.map((c) => `${countryName(c.countryCode)} (${format.count(c.count)})`).join(", "))
            ]))),
        h("section", { class: "grid2" },
          h("div", null, h("h2", null, "Sports"),
            barList("year-sports", "Moving time per sport", review.sportTypes.map((s) => ({
              label: format.sportLabel(s.sportType),
              sportType: s.sportType,
              value: s.movingTimeInSeconds,
              text: `${hours(s.movingTimeInSeconds)} · ${format.distance(s.distanceInMeter)}`
            })))),
          h("div", null, h("h2", null, "Weekdays"),
            barList("year-weekdays", "Moving time per weekday", review.weekdays.map((w) => ({
              label: weekdayName(w.weekday, "short"),
              value: w.movingTimeInSeconds,
              text: hours(w.movingTimeInSeconds)
            }))))),
        h("section", { id: "year-records" },
          h("h2", null, `Records set in ${year}`),
          review.records.length === 0
            ? h("p", { class: "empty" }, "No record this year.")
            : h("div", { class: "table-wrap", tabindex: 0 }, h("table", null,
              h("caption", { class: "visually-hidden" }, `Records set in ${year}`),
              h("thead", null, h("tr", null, h("th", { scope: "col" }, "Distance"), h("th", { scope: "col", class: "num" }, "Time"), h("th", { scope: "col" }, "When"))),
              h("tbody", null, review.records.map((r) => h("tr", null,
                h("td", null, `${r.name} ${DISCIPLINES[r.discipline]}`),
                h("td", { class: "num" }, format.duration(r.elapsedTimeInSeconds)),
                h("td", null, h("a", { href: `#/activity/${encodeURIComponent(r.activityId)}` }, format.localDateTime(r.startDateLocal, "short"))))))))),
        h("section", { id: "year-share" },
          h("h2", null, "Share"),
          h("textarea", { id: "year-summary", readonly: true, rows: summary.split("\n").length + 1, "aria-label": "Summary of the year" }, summary),
          h("div", { class: "row" }, h("button", { type: "button", class: "primary", onclick: copy }, "Copy summary")))
      ])

  if (review.totals.count > 0) {
    cleanups.push(totalsChart(monthsBox, monthsLegend, {
      totals: monthTotals,
      periods: review.months.map((m) => m.month),
      measure: "distance",
      periodName: "Month",
      label: (month) => monthName(month),
      tick: monthOnly,
      tickSteps: [1, 2, 3, 6],
      tickSpace: 40,
      height: 220
    }).remove)
  }
  return () => cleanups.forEach((c) => c())
}
