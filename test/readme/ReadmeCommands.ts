import * as fs from "node:fs"
import * as path from "node:path"
import { REPO_DIR } from "../support/ChildDaemon.ts"

/** The shell commands of README.md: every ```sh block, continuation lines joined, comments dropped. */
export interface ReadmeBlock {
  readonly heading: string
  readonly commands: ReadonlyArray<string>
}

export const readmeBlocks = (file = path.join(REPO_DIR, "README.md")): Array<ReadmeBlock> => {
  const blocks: Array<ReadmeBlock> = []
  let heading = ""
  let current: Array<string> | null = null
  let pending = ""
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (current === null) {
      if (line.startsWith("#")) heading = line.replace(/^#+\s*/, "")
      if (/^```(sh|bash|shell)\s*$/.test(line)) current = []
      continue
    }
    if (line.startsWith("```")) {
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
