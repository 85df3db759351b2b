import * as fs from "node:fs"
import * as path from "node:path"
import { REPO_DIR } from "../support/ChildDaemon.ts"

export const README = path.join(REPO_DIR, "README.md")
export const DOCS_DIR = path.join(REPO_DIR, "docs")

/** Every page under docs/ (Markdown), by absolute path. */
export const docsPages = (): Array<string> =>
  fs.readdirSync(DOCS_DIR).filter((f) => f.endsWith(".md")).sort().map((f) => path.join(DOCS_DIR, f))

/** The shell commands of a Markdown page: every ```sh block, continuation lines joined, comments dropped. */
export interface ReadmeBlock {
  readonly heading: string
  readonly commands: ReadonlyArray<string>
}

export const readmeBlocks = (file = README): Array<ReadmeBlock> => {
  const blocks: Array<ReadmeBlock> = []
  let heading = ""
  let current: Array<string> | null = null
  let pending = ""
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (current === null) {
      if (line.startsWith("#")) heading = line.replace(/^#+\s*/, "")
      if (/^\s*```(sh|bash|shell)\s*$/.test(line)) current = []
      continue
    }
    if (line.trim().startsWith("```")) {
      blocks.push({ heading, commands: current })
      current = null
      continue
    }
    const joined = pending + line
    if (joined.endsWith("\\")) {
      pending = joined.slice(0, -1)
      continue
    }
    pending = ""
    const command = joined.replace(/\s+#\s.*$/, "").trim()
    if (command !== "" && !command.startsWith("#")) current.push(command)
  }
  return blocks
}

/** A link of a Markdown page outside its code: its target as written, and its line. */
export interface PageLink {
  readonly target: string
  readonly line: number
}

/** The links of a Markdown page (`[text](target)`), code blocks and code spans left out. */
export const pageLinks = (file: string): Array<PageLink> => {
  const links: Array<PageLink> = []
  let fenced = false
  fs.readFileSync(file, "utf8").split("\n").forEach((text, index) => {
    if (text.trim().startsWith("```")) fenced = !fenced
    if (fenced) return
    for (const m of text.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ target: m[1]!, line: index + 1 })
    }
  })
  return links
}

/** The anchors of a page's headings, as GitHub makes them (`## The athlete's year` -> `the-athletes-year`). */
export const headingAnchors = (file: string): Set<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const text of fs.readFileSync(file, "utf8").split("\n")) {
    if (text.trim().startsWith("```")) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(text)
    if (heading === null) continue
    const slug = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}
