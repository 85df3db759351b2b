import type { MapClientConfig } from "../../schema/MapModels.ts"
import { escapeHtml } from "../../services/platform/escapeHtml.ts"
import { DASHBOARD_PAGES, HOME_PAGE, menuLabelOf, type PageName } from "./dashboardPages.ts"

/**
 * The two HTML documents of the dashboard: the sign-in page (plain HTML, works without
 * scripts) and the app's shell, which loads the bundled script and styles. Everything put into
 * them is escaped; the configuration the app needs rides in a data attribute, never in an
 * inline script.
 */

export interface ShellConfig {
  readonly version: string
  readonly unitSystem: "metric" | "imperial"
  readonly map: MapClientConfig
  readonly canUpload: boolean
  readonly sportTypes: ReadonlyArray<string>
  /** The sport types counted as rides, runs and swims (the training analysis's and the pace's groups). */
  readonly sportGroups: { readonly rides: ReadonlyArray<string>; readonly runs: ReadonlyArray<string>; readonly swims: ReadonlyArray<string> }
}

const head = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/dashboard/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/app.css">`

const logo = `<span class="logo" aria-hidden="true"><img src="/dashboard/assets/icon.svg" alt="" width="28" height="28"></span>`

export interface SignInOptions {
  readonly configured: boolean
  readonly error?: string
  readonly notBuilt?: boolean
}

export const signInPage = (options: SignInOptions): string => {
  const body = !options.configured
    ? `<h1>Waymark is not set up yet</h1>
<p>The service has no API key, so its API and this dashboard stay closed.</p>
<ol>
<li>Generate a key: <code>npm run cli -- app:setup</code> (it writes it into <code>.env</code>), or <code>npm run cli -- app:api-key:generate</code> and set <code>SERVICE_API_KEY</code> to it.</li>
<li>Restart the service and reload this page.</li>
</ol>`
    : options.notBuilt === true
    ? `<h1>The dashboard is not built</h1><p>Run <code>npm run build</code>, then reload this page.</p>`
    : `<h1>Sign in</h1>
<p>Enter the service's API key (<code>SERVICE_API_KEY</code>, shown by <code>npm run cli -- app:setup</code>).</p>
<form method="post" action="/sign-in" class="stack">
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus spellcheck="false" placeholder="wmk_…">
${options.error === undefined ? "" : `<p class="error" role="alert">${escapeHtml(options.error)}</p>`}
<button type="submit" class="primary">Sign in</button>
</form>`
  return `${head("Sign in · Waymark")}
</head>
<body class="signin">
<main class="card narrow">
<p class="brand">${logo} Waymark</p>
${body}
</main>
</body>
</html>
`
}

const MENU = (Object.keys(DASHBOARD_PAGES) as Array<PageName>).filter((name) => DASHBOARD_PAGES[name].menu)

export const shellPage = (config: ShellConfig): string => `${head("Waymark")}
<script type="module" src="/dashboard/assets/app.js"></script>
</head>
<body data-config="${escapeHtml(JSON.stringify(config))}">
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="#/${HOME_PAGE}">${logo} Waymark</a>
<nav aria-label="Sections">
<button type="button" id="menu-button" class="menu" aria-expanded="false" aria-controls="sections"><span class="menu-icon" aria-hidden="true"></span>Menu</button>
<ul id="sections">
${MENU.map((name) => `<li><a href="#/${name}" data-nav="${name}">${escapeHtml(menuLabelOf(name))}</a></li>`).join("\n")}
</ul></nav>
<form method="post" action="/sign-out"><button type="submit" class="link">Sign out</button></form>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
</body>
</html>
`
