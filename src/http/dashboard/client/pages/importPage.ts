import { ApiError, call, upload } from "../api.ts"
import { config } from "../config.ts"
import { confirmDialog, h, replace, toast } from "../dom.ts"
import * as format from "../format.ts"
import { IMPORT_SOURCES, IMPORT_STATUSES } from "../labels.ts"
import { linkedMessage } from "../linkedMessage.ts"
import type { Page } from "../main.ts"
import { pageInstead, pager } from "../pager.ts"
import type { FileImport, ImportProgress } from "../types.ts"

/** Upload by drag and drop or file picker, each file with its progress, and the live import log. */

const ACCEPT = ".fit,.tcx,.gpx,.kml,.kmz,.gz,.zip"
const POLL_MS = 2000
/** How long a batch stays shown as done once the daemon is idle, when the page looked too late for its own answer. */
const FINISHED_SHOWN_MS = 6000
const PAGE_SIZE = 50

const statusBadge = (status: FileImport["status"]) => h("span", { class: `badge ${status}` }, IMPORT_STATUSES[status])

/** "1234 of 5000 files done (30.1 files/s, about 2 min 5 s left)", as the daemon log says it, and what was not imported. */
const progressLine = (p: ImportProgress) =>
  p.words + (p.skipped + p.failed === 0 ? "" : `: ${format.count(p.skipped)} skipped, ${format.count(p.failed)} failed`)

export const importPage: Page = async (main, params) => {
  const page = Number(params.get("page") ?? "1") || 1
  const uploads = h("ul", { class: "uploads", id: "uploads", "aria-live": "polite" })
  const logBody = h("tbody")

  const send = (files: Iterable<File>) => {
    for (const file of files) {
      const bar = h("progress", { max: 1, value: 0, "aria-label": `Upload of ${file.name}` })
      const state = h("span", { class: "muted" }, "sending…")
      uploads.prepend(h("li", null, h("span", { class: "name" }, file.name), bar, state))
      upload(file, (fraction) => { bar.value = fraction })
        .then((answer) => {
          bar.value = 1
          state.textContent = answer.message || "queued"
          state.className = "ok"
          void refresh()
        })
        .catch((error: unknown) => {
          state.textContent = error instanceof ApiError ? error.message : String(error)
          state.className = "error"
        })
    }
  }

  const picker = h("input", { type: "file", id: "file-input", multiple: true, accept: ACCEPT, class: "visually-hidden",
    onchange: () => {
      if (picker.files) send(picker.files)
      picker.value = ""
    } })
  const zone = h("label", { for: "file-input", class: "dropzone", id: "dropzone" },
    h("strong", null, "Drop activity files here"),
    h("span", null, " or choose them"),
    h("small", { class: "muted" }, "FIT, TCX, GPX, KML, KMZ, gzipped (.gz), or a zip: an export of Garmin Connect, Strava, FitTrackee or Endurain"))
  zone.addEventListener("dragover", (e) => {
    e.preventDefault()
    zone.classList.add("over")
  })
  zone.addEventListener("dragleave", () => zone.classList.remove("over"))
  zone.addEventListener("drop", (e) => {
    e.preventDefault()
    zone.classList.remove("over")
    if (e.dataTransfer) send(e.dataTransfer.files)
  })

  const act = async (item: FileImport, endpoint: "fileImports.retry" | "fileImports.delete", done: string) => {
    try {
      await call(endpoint, { path: { fileImportId: item.id! } })
      toast(done)
      await refresh()
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error")
    }
  }
  const actions = (item: FileImport) =>
    item.id === null || (item.status !== "failed" && item.status !== "skipped")
      ? null
      : h("div", { class: "actions" },
        item.status === "failed"
          ? h("button", { type: "button", class: "link", "aria-label": `Retry ${item.filename}`, onclick: () => act(item, "fileImports.retry", `${item.filename} queued again.`) }, "Retry")
          : null,
        h("button", { type: "button", class: "link", "aria-label": `Remove ${item.filename}`, onclick: async () => {
          if (await confirmDialog(`Remove the row of ${item.filename} and its kept file?`, "Remove")) await act(item, "fileImports.delete", `${item.filename} removed.`)
        } }, "Remove"))

  /** The file, then each activity it made by its name: every leg of a multisport file. */
  const fileCell = (item: FileImport) =>
    h("td", { class: "name file" },
      h("span", { class: "filename" }, item.filename),
      item.activities.length === 0
        ? null
        : h("ul", { class: "made", "aria-label": `Activities of ${item.filename}` },
          ...item.activities.map((a) =>
            h("li", null, h("a", { href: `#/activity/${encodeURIComponent(a.id)}` }, a.name || "Untitled activity"),
              item.activities.length > 1 ? h("span", { class: "muted" }, ` (${format.sportLabel(a.sportType)})`) : null))))
  /** Why a file was skipped or failed, and what its import repaired (times unknown, samples dropped). */
  const messageCell = (item: FileImport) =>
    h("td", { class: "message" },
      item.errorMessage === null ? null : h("div", null, linkedMessage(item.errorMessage)),
      item.notes === null ? null : h("div", { class: "notes muted" }, item.notes))

  const row = (item: FileImport) =>
    h("tr", null,
      h("td", { class: "status" }, statusBadge(item.status)),
      fileCell(item),
      h("td", { class: "source" }, IMPORT_SOURCES[item.source]),
      h("td", { class: "nowrap when" }, item.importedOn === null ? "–" : format.instant(item.importedOn)),
      messageCell(item),
      h("td", { class: "acts" }, actions(item)))

  const pages = h("div")
  const progressBar = h("progress", { max: 1, value: 0, "aria-label": "Files of the import under way done" })
  const progressText = h("span")
  const progressLabel = h("strong", null, "Importing: ")
  const progress = h("p", { class: "card import-progress", id: "import-progress", role: "status", hidden: true }, progressLabel, progressText, progressBar)
  /** the batch seen last, and until when its finished count stays shown once the daemon is idle */
  let lastBatch: ImportProgress | null = null
  let finishedUntil = 0
  const draw = (p: ImportProgress) => {
    progress.hidden = false
    progressLabel.textContent = p.running ? "Importing: " : "Imported: "
    progressText.textContent = progressLine(p)
    progressBar.max = Math.max(p.total, 1)
    progressBar.value = p.done
  }
  const showProgress = (p: ImportProgress) => {
    // a lone file (an upload) has its own row soon enough: the line is for a batch, shown whole
    // for a while once nothing waits (more files arriving meanwhile continue the same count)
    if (p.total >= 2) {
      lastBatch = p
      finishedUntil = 0
      return draw(p)
    }
    // the daemon answers a batch's whole count for a few seconds after its last file: a look
    // that came later (a busy machine, a hidden tab) still shows the batch done, for as long
    if (lastBatch !== null && finishedUntil === 0) finishedUntil = Date.now() + FINISHED_SHOWN_MS
    if (lastBatch !== null && Date.now() < finishedUntil) {
      const total = format.count(lastBatch.total)
      return draw({ ...lastBatch, running: false, done: lastBatch.total, words: `${total} of ${total} files done` })
    }
    lastBatch = null
    progress.hidden = true
  }
  /** Draws the log's page again; false when the page is gone (past the last) and the last one is opened instead. */
  const refresh = async () => {
    const [list, now] = await Promise.all([
      call("fileImports.search", { query: { "pagination[page]": page, "pagination[size]": PAGE_SIZE } }),
      call("fileImports.progress")
    ])
    showProgress(now)
    // rows removed meanwhile may leave this page past the last: show the last instead
    const instead = pageInstead(list.pagination)
    if (instead !== null) {
      location.replace(`#/import${instead === 1 ? "" : `?page=${instead}`}`)
      return false
    }
    replace(logBody, list.fileImports.map(row))
    replace(pages, pager("Pages of the import log", list.pagination, format.plural(list.pagination.total, "entry", "entries"), (p) => {
      location.hash = `#/import?page=${p}`
    }))
    return true
  }
  if (!(await refresh())) return
  const timer = setInterval(() => {
    if (document.visibilityState === "visible") void refresh().catch(() => undefined)
  }, POLL_MS)

  replace(main,
    h("h1", null, "Import"),
    config.canUpload
      ? h("section", null, picker, zone, uploads)
      : h("p", { class: "card" }, "Uploads are closed: the service imports from Strava (IMPORT_MODE=externalApi)."),
    h("section", null,
      h("h2", null, "Import log"),
      progress,
      h("div", { class: "table-wrap", tabindex: 0 },
        h("table", { id: "import-log", class: "cards" },
          h("caption", { class: "visually-hidden" }, "Import log, newest first"),
          h("thead", null, h("tr", null,
            h("th", { scope: "col" }, "Status"), h("th", { scope: "col" }, "File"), h("th", { scope: "col" }, "Source"),
            h("th", { scope: "col" }, "Imported"), h("th", { scope: "col" }, "Message"),
            h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
          logBody)),
      pages))
  return () => clearInterval(timer)
}
