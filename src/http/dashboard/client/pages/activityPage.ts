import polyline from "@mapbox/polyline"
import { ApiError, call, urlOf } from "../api.ts"
import { config } from "../config.ts"
import { confirmDialog, field, h, replace, toast } from "../dom.ts"
import * as format from "../format.ts"
import { detailTables, drawCharts, loadStreams, routeOf } from "../activityDetail.ts"
import type { Page } from "../main.ts"
import { raceSection } from "../raceView.ts"
import { drawSegments } from "../activitySegments.ts"
import { type LatLng, routeMap } from "../routeMap.ts"
import { stretches as stretchState } from "../stretches.ts"
import { drawShared, shareSection } from "../shareView.ts"
import { drawAnalysis } from "../trainingAnalysis.ts"
import { lengthsSection, swimFigures, swum } from "../swimView.ts"
import type { Activity } from "../types.ts"

/** One activity: its figures, map, description, images, editing, downloads and deletion. */

const stat = (label: string, value: string | null | undefined) =>
  value === null || value === undefined ? null : h("div", { class: "stat" }, h("dt", null, label), h("dd", null, value))

const optional = (n: number | null | undefined, show: (n: number) => string) => (n === null || n === undefined ? null : show(n))

export const activityPage: Page = async (main, _params, id) => {
  const [activity, gear, streams] = await Promise.all([
    call("activities.get", { path: { activityId: id } }),
    call("gear.list"),
    loadStreams(id)
  ])
  const tables = h("div", { id: "activity-tables" })
  const training = h("section", { id: "activity-training" })
  const cleanups: Array<() => void> = []
  const a = activity
  const gearName = gear.gear.find((g) => g.id === a.gearId)?.name
  const place = [a.location.city, a.location.state, a.location.countryCode?.toUpperCase()].filter((p) => p !== null && p !== undefined && p !== "").join(", ")

  // a route whose times are unknown has no time nor speed to show; a swimmer climbs nothing
  const timed = a.hasTimes
  const figures = h("dl", { class: "stats" },
    stat("Distance", format.isSwim(a.sportType) ? swum(a.distanceInMeter) : format.distance(a.distanceInMeter)),
    stat("Moving time", timed ? format.duration(a.movingTimeInSeconds) : "unknown"),
    stat("Elapsed time", timed ? format.duration(a.elapsedTimeInSeconds) : "unknown"),
    format.isSwim(a.sportType) ? null : stat("Elevation gain", format.elevation(a.elevationInMeter)),
    timed ? stat(format.isPaced(a.sportType) ? "Average pace" : "Average speed", format.speedOrPace(a.averageSpeedInKmPerHour, a.sportType)) : null,
    timed ? stat(format.isPaced(a.sportType) ? "Best pace" : "Max speed", format.speedOrPace(a.maxSpeedInKmPerHour, a.sportType)) : null,
    swimFigures(a).map(([label, value]) => stat(label, value)),
    stat("Average heart rate", optional(a.averageHeartRate, (n) => `${n} bpm`)),
    stat("Max heart rate", optional(a.maxHeartRate, (n) => `${n} bpm`)),
    stat("Average power", optional(a.averagePower, (n) => `${n} W`)),
    stat("Max power", optional(a.maxPower, (n) => `${n} W`)),
    stat("Average cadence", optional(a.averageCadence, (n) => `${n} ${format.cadenceUnit(a.sportType)}`)),
    stat("Calories", optional(a.calories, (n) => `${format.count(n)} kcal`)),
    stat("Gear", gearName))

  const mapBox = h("div", { class: "map", id: "activity-map", role: "region", "aria-label": "Map of the route" })
  const sharedNote = h("p", { class: "muted", id: "activity-shared-part" })
  const race = h("div", { id: "activity-race" })
  const lengths = h("div", { id: "activity-lengths" })
  const charts = h("div", { id: "activity-charts" })
  const segments = h("div", { id: "activity-segment-part" })

  // editing
  const name = h("input", { name: "name", value: a.name, required: true, maxlength: 255 })
  const sport = h("select", { name: "sportType" }, config.sportTypes.map((s) => h("option", { value: s, selected: s === a.sportType }, format.sportLabel(s))))
  const description = h("textarea", { name: "description", rows: 4 }, a.description)
  const gearSelect = h("select", { name: "gearId" },
    h("option", { value: "" }, "No gear"),
    gear.gear.filter((g) => !g.isRetired || g.id === a.gearId).map((g) => h("option", { value: g.id, selected: g.id === a.gearId }, g.name)))
  // a GPS jump may set records no one ran: the athlete keeps such an activity out of them
  const excluded = h("input", { type: "checkbox", role: "switch", name: "excludeFromRecords", id: "exclude-from-records", checked: a.excludeFromRecords })
  const recordsSwitch = h("div", { class: "field" },
    h("label", { class: "check" }, excluded, " Keep out of records"),
    h("small", { class: "muted" }, "Its best efforts set no record, nor a record's milestone."))
  const editError = h("p", { class: "error", role: "alert", hidden: true })
  const edit = h("details", { class: "card", id: "activity-edit" },
    h("summary", null, "Edit"),
    h("form", {
      class: "stack",
      id: "edit-activity",
      onsubmit: async (e: Event) => {
        e.preventDefault()
        try {
          await call("activities.update", {
            path: { activityId: a.id },
            payload: {
              name: name.value,
              sportType: sport.value as Activity["sportType"],
              description: description.value,
              gearId: gearSelect.value === "" ? null : gearSelect.value,
              excludeFromRecords: excluded.checked
            }
          })
          toast("Saved.", "ok", { next: true })
          dispatchEvent(new HashChangeEvent("hashchange"))
        } catch (error) {
          editError.hidden = false
          editError.textContent = error instanceof ApiError ? error.message : String(error)
        }
      }
    }, field("Name", name), field("Sport", sport), field("Description", description), field("Gear", gearSelect), recordsSwitch, editError,
      h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Save"))))

  const remove = h("button", {
    type: "button",
    class: "danger",
    onclick: async () => {
      if (!(await confirmDialog(`Delete “${a.name}”? Its streams, images and original file go with it.`, "Delete"))) return
      try {
        await call("activities.delete", { path: { activityId: a.id } })
        toast("Activity deleted.", "ok", { next: true })
        location.hash = "#/activities"
      } catch (error) {
        toast(error instanceof ApiError ? error.message : String(error), "error")
      }
    }
  }, "Delete…")

  const downloads = h("div", { class: "row" },
    a.hasGpx ? h("a", { class: "button", href: urlOf("activities.gpx", { path: { activityId: a.id } }), download: "" }, "Download GPX") : null,
    a.importSource !== "stravaApi" ? h("a", { class: "button", href: urlOf("activityDetail.original", { path: { activityId: a.id } }), download: "" }, "Download original file") : null,
    remove)

  replace(main,
    h("p", { class: "crumbs" }, h("a", { href: "#/activities" }, "← Activities")),
    h("h1", { id: "activity-name" }, a.name),
    h("p", { class: "muted" }, [format.activityStart(a), format.sportLabel(a.sportType), a.deviceName, place].filter((p) => p !== null && p !== undefined && p !== "").join(" · ")),
    race,
    figures,
    a.encodedPolyline || routeOf(streams.streams).length > 1 ? mapBox : null,
    sharedNote,
    charts,
    segments,
    training,
    tables,
    lengths,
    a.description !== "" ? h("section", null, h("h2", null, "Description"), h("p", { class: "description" }, a.description)) : null,
    a.images.length > 0
      ? h("section", null, h("h2", null, "Images"), h("div", { class: "images" }, a.images.map((img, i) => h("a", { href: img.url }, h("img", { src: img.url, alt: `Image ${i + 1} of ${a.name}`, loading: "lazy" })))))
      : null,
    shareSection(a),
    edit,
    downloads)

  // the recorded positions when there are any (the chart cursor points into them), else the summary line
  const latlng = streams.streams.latlng
  const route = routeOf(streams.streams)
  const map = route.length > 1
    ? routeMap(mapBox, [route])
    : a.encodedPolyline ? routeMap(mapBox, [polyline.decode(a.encodedPolyline) as Array<LatLng>]) : undefined
  if (map) cleanups.push(map.remove)
  // the stretch of an effort or a climb shown, or of a segment being chosen, on the charts as on the map
  const stretches = stretchState()
  cleanups.push(drawCharts(charts, streams.streams, a, (index) => {
    const point = index === null || latlng === undefined ? null : latlng[index] ?? null
    map?.showPoint(point)
  }, stretches))
  const shown = (into: HTMLElement) => (found: HTMLElement | null) => into.replaceChildren(...(found === null ? [] : [found]))
  const failed = (into: HTMLElement) => (error: unknown) => {
    into.replaceChildren(h("p", { class: "error" }, error instanceof ApiError ? error.message : String(error)))
  }
  drawAnalysis(training, a).then((remove) => cleanups.push(remove)).catch(failed(training))
  drawShared(a, map, sharedNote).then((remove) => cleanups.push(remove)).catch(failed(sharedNote))
  if (!format.isSwim(a.sportType)) drawSegments(segments, a, { latlng, distance: streams.streams.distance }, map, stretches).then((remove) => cleanups.push(remove)).catch(failed(segments))
  detailTables(a).then(shown(tables)).catch(failed(tables))
  raceSection(a).then(shown(race)).catch(failed(race))
  lengthsSection(a).then(shown(lengths)).catch(failed(lengths))
  return () => cleanups.forEach((c) => c())
}
