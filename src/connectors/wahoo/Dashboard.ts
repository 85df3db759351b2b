import { escapeHtml } from "../../services/platform/escapeHtml.ts"
import { TIME_WINDOWS, type TimeWindow } from "./WahooConfig.ts"
import type { Status } from "./WahooStatus.ts"

/**
 * The dashboard page: whether an account is connected (with a button that starts the
 * authorization), the schedule and the next sync, a button that syncs now (over a chosen
 * window), the last result with its problems in plain words, and the recent downloads.
 * Everything shown is escaped; the page script only calls `/api/sync` and `/api/status`
 * and reloads the page when a sync ends.
 */

export interface Notice {
  readonly kind: "success" | "error"
  readonly text: string
}


const WINDOW_LABELS: Record<TimeWindow, string> = {
  "1_day": "last day",
  "1_week": "last week",
  "1_month": "last month",
  "1_year": "last year",
  all_time: "all time"
}

const when = (iso: string | null, none: string) =>
  iso === null ? escapeHtml(none) : `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace("T", " ").replace(/\.\d+Z$/, "Z").replace(/Z$/, " UTC"))}</time>`

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2433}
main{max-width:860px;margin:0 auto;padding:24px}
h1{font-size:1.5rem;margin:0 0 16px}
section{background:#fff;border-radius:8px;padding:16px 20px;margin-bottom:16px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{font-size:1.1rem;margin:0 0 12px}
.badge{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600}
.ok{background:#dff5e3;color:#17612a}.off{background:#fde2e1;color:#8a1f17}
.notice{padding:10px 14px;border-radius:6px;margin-bottom:16px}
.notice.success{background:#dff5e3}.notice.error{background:#fde2e1}
.button{display:inline-block;background:#1d62d6;color:#fff;border:0;border-radius:6px;padding:8px 16px;font-size:1rem;text-decoration:none;cursor:pointer}
.button:disabled{background:#8aa6d6;cursor:default}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e4e7ec;font-size:.92rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0}dt{color:#5a6375}dd{margin:0}
ul.errors{margin:8px 0 0;padding-left:20px;color:#8a1f17}
`

const SCRIPT = `
const form = document.getElementById("sync-form");
const out = document.getElementById("sync-message");
const button = document.getElementById("sync-now");
let lastSeen = document.body.dataset.lastSync;
let syncing = document.body.dataset.syncing === "true";
form?.addEventListener("submit", async (event) => {
  event.preventDefault();
  button.disabled = true;
  out.textContent = "Asking for a sync...";
  try {
    const response = await fetch("/api/sync", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ time_window: form.elements.time_window.value })
    });
    const body = await response.json();
    out.textContent = body.message;
    if (body.status === "started" || body.status === "in_progress") syncing = true;
  } catch (error) {
    out.textContent = "The connector did not answer: " + error;
  }
  button.disabled = false;
});
setInterval(async () => {
  try {
    const status = await (await fetch("/api/status")).json();
    if (status.is_syncing) { syncing = true; out && (out.textContent = "Sync in progress..."); return; }
    if (syncing || (status.last_sync_time ?? "") !== lastSeen) location.replace("/");
  } catch {}
}, 1500);
`

const resultBlock = (status: Status) => {
  const result = status.last_result
  if (result === null) return `<p>No sync has run yet.</p>`
  const kind = result.status === "success" ? "ok" : "off"
  const label = result.status === "success" ? "Succeeded" : result.status === "partial_success" ? "Partly succeeded" : "Failed"
  const errors = result.errors.length === 0
    ? ""
    : `<ul class="errors">${result.errors.map((e) => `<li>${escapeHtml(e)}</li>`).join("")}</ul>`
  return `<p id="last-result"><span class="badge ${kind}">${label}</span> ${escapeHtml(result.message)} ` +
    `<small>(${when(result.timestamp, "")}, window: ${escapeHtml(WINDOW_LABELS[result.time_window])}; ` +
    `${result.new_downloads} new, ${result.skipped} already downloaded, ${result.without_file} without file)</small></p>${errors}`
}

const downloadsBlock = (status: Status) =>
  status.last_sync_history.length === 0
    ? `<p id="downloads-empty">Nothing downloaded yet.</p>`
    : `<table id="downloads"><thead><tr><th>File</th><th>Workout start</th><th>Downloaded</th></tr></thead><tbody>` +
      status.last_sync_history.map((d) =>
        `<tr><td>${escapeHtml(d.filename)}</td><td>${when(d.starts, "unknown")}</td><td>${when(d.downloaded_at, "")}</td></tr>`
      ).join("") +
      `</tbody></table>`

export const renderDashboard = (status: Status, notice: Notice | undefined): string => {
  const connection = status.authenticated
    ? `<p><span class="badge ok" id="connection">Connected to Wahoo</span></p>
       <p><a class="button" href="/connect">Connect again</a> <small>(to use another account or renew the authorization)</small></p>`
    : `<p><span class="badge off" id="connection">Not connected</span></p>
       ${status.auth_error === null ? "" : `<p class="notice error">${escapeHtml(status.auth_error)}. Connect again to go on.</p>`}
       <p><a class="button" href="/connect" id="connect">Connect to Wahoo</a></p>`
  const options = TIME_WINDOWS.map((w) =>
    `<option value="${w}"${w === status.time_window ? " selected" : ""}>${escapeHtml(WINDOW_LABELS[w])}</option>`
  ).join("")
  const syncForm = status.authenticated
    ? `<form id="sync-form"><label>Workouts of the <select name="time_window">${options}</select></label>
       <button class="button" id="sync-now" type="submit"${status.is_syncing ? " disabled" : ""}>Sync now</button></form>
       <p id="sync-message" role="status">${status.is_syncing ? "Sync in progress..." : ""}</p>`
    : `<p>Connect an account to sync.</p>`
  const backoff = status.backoff_seconds > 0
    ? `<dt>Rate limit</dt><dd>Wahoo's request limit was reached; the next sync waits ${Math.ceil(status.backoff_seconds / 60)} minute(s).</dd>`
    : ""
  const lastError = status.last_error === null ? "" : `<dt>Last problem</dt><dd>${escapeHtml(status.last_error)}</dd>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Waymark Wahoo connector</title>
<style>${STYLE}</style>
</head>
<body data-last-sync="${escapeHtml(status.last_sync_time ?? "")}" data-syncing="${status.is_syncing}">
<main>
<h1>Waymark Wahoo connector</h1>
${notice === undefined ? "" : `<p class="notice ${notice.kind}" id="notice">${escapeHtml(notice.text)}</p>`}
<section><h2>Account</h2>${connection}</section>
<section><h2>Sync</h2>
<dl>
<dt>Schedule</dt><dd><code>${escapeHtml(status.cron_expr)}</code> (UTC), workouts of the ${escapeHtml(WINDOW_LABELS[status.time_window])}</dd>
<dt>Next sync</dt><dd id="next-sync">${when(status.next_sync_time, "not scheduled")}</dd>
<dt>Last sync</dt><dd>${when(status.last_sync_time, "never")}</dd>
<dt>Downloaded</dt><dd>${status.total_downloaded} workout(s) in all</dd>
${backoff}${lastError}
</dl>
${syncForm}
</section>
<section><h2>Last result</h2>${resultBlock(status)}</section>
<section><h2>Recent downloads</h2>${downloadsBlock(status)}</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`
}
