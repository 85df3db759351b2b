import * as fs from "node:fs"
import * as tty from "node:tty"

/**
 * Log lines are written whole or not at all. On a full disk the kernel writes what still fits
 * of a write and fails the next with ENOSPC: a line cut there, and the next line written once
 * some room is back, would read as one line fused from half of each. So a write cut short is
 * taken back (the file truncated to where the line began) before the failure is thrown.
 */

/**
 * Appends `text` (one line or more, each ending in a newline) to the file `fd`, opened for
 * appending: whole, or, when the disk cannot take it all, not at all (throws the write's error
 * with the file as it was).
 */
export const appendWhole = (fd: number, text: string): void => {
  const bytes = Buffer.from(text)
  let written = 0
  try {
    while (written < bytes.length) {
      const n = fs.writeSync(fd, bytes, written, bytes.length - written)
      if (n <= 0) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })
      written += n
    }
  } catch (e) {
    // the file ends with the `written` bytes of this line (it is appended to): cut them off;
    // a truncation needs no room
    if (written > 0) {
      try {
        fs.ftruncateSync(fd, fs.fstatSync(fd).size - written)
      } catch {
        // nothing more can be done about it
      }
    }
    throw e
  }
}

/** Appends `text` to the file at `file` whole or not at all (see appendWhole); false when it could not. */
export const appendWholeTo = (file: string, text: string): boolean => {
  let fd: number
  try {
    fd = fs.openSync(file, "a")
  } catch {
    return false
  }
  try {
    appendWhole(fd, text)
    return true
  } catch {
    return false
  } finally {
    fs.closeSync(fd)
  }
}

/** Whether stdout is what Node writes to synchronously as a file: a regular file, or a device that is no terminal (/dev/full). */
const stdoutIsFile = (): boolean => {
  try {
    const stat = fs.fstatSync(1)
    return stat.isFile() || (stat.isCharacterDevice() && !tty.isatty(1))
  } catch {
    return false
  }
}

let toStdout: ((text: string) => void) | undefined

/**
 * Writes `text` (whole lines) on stdout. A file (`>> waymark.log`, a service's
 * `StandardOutput=append:`) gets each line whole or not at all (appendWhole), and a full disk
 * costs the line, never the process (Node's own stdout stream for a file throws its ENOSPC as
 * an unhandled error); a terminal or a pipe (journald, Docker) gets it through process.stdout.
 */
export const writeStdout = (text: string): void => {
  toStdout ??= stdoutIsFile()
    ? (line) => {
      try {
        appendWhole(1, line)
      } catch {
        // a full or failing disk: the line is lost, the daemon goes on
      }
    }
    : (line) => void process.stdout.write(line)
  toStdout(text)
}
