import * as fs from "node:fs"
import * as path from "node:path"
import { linkUnderFreeName } from "./files/PublishFile.ts"

/**
 * Names of the watch folder that are not UTF-8 (a file copied from an old system, named in
 * Latin-1: `Fahrt_M\xfcnchen.fit`). Node reads such a name with replacement characters, under
 * which the file can be neither opened nor named: it would never be imported, and never said.
 * Each is renamed once to its bytes with every byte that is not UTF-8 escaped as `%XX`
 * (`Fahrt_M%FCnchen.fit`), never over another entry; the file is then imported under that name.
 */

/** The length of the UTF-8 sequence starting at `i`, 0 when the bytes there are not one. */
const sequenceLength = (bytes: Uint8Array, i: number): number => {
  const b = bytes[i]!
  if (b < 0x80) return 1
  const [length, min] = b >= 0xc2 && b <= 0xdf ? [2, 0x80] : b >= 0xe0 && b <= 0xef ? [3, 0x800] : b >= 0xf0 && b <= 0xf4 ? [4, 0x10000] : [0, 0]
  if (length === 0 || i + length > bytes.length) return 0
  let code = b & (0xff >> (length + 1))
  for (let k = 1; k < length; k++) {
    const next = bytes[i + k]!
    if ((next & 0xc0) !== 0x80) return 0
    code = (code << 6) | (next & 0x3f)
  }
  // overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8
  return code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff ? 0 : length
}

const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, "0")

/**
 * The name `bytes` as text with each byte that is not UTF-8 written by `escape` (`%XX` by
 * default: the name it is renamed to); null when it is UTF-8 already.
 */
export const escapedName = (bytes: Uint8Array, escape: (byte: number) => string = (byte) => `%${hex(byte)}`): string | null => {
  let out = ""
  let escaped = false
  for (let i = 0; i < bytes.length;) {
    const length = sequenceLength(bytes, i)
    if (length === 0) {
      out += escape(bytes[i]!)
      escaped = true
      i++
    } else {
      out += Buffer.from(bytes.subarray(i, i + length)).toString("utf8")
      i += length
    }
  }
  return escaped ? out : null
}

/**
 * The name `bytes` as it was found, for a log line: each byte that is not UTF-8 written `\xXX`,
 * the way the log writes a control character, so that it reads apart from the `%XX` of the
 * name it is renamed to.
 */
export const foundName = (bytes: Uint8Array): string => escapedName(bytes, (byte) => `\\x${byte.toString(16).padStart(2, "0")}`) ?? Buffer.from(bytes).toString("utf8")

/**
 * Renames the entries of `dir` whose names are not UTF-8 to their escaped names (a file by a
 * hard link under the first free name then an unlink, a folder by a rename to a free name):
 * answers each rename, `[found, placed]` (`found` the name as it was, its bytes written `\xXX`;
 * `placed` the new one). An entry that cannot be renamed is left (a later scan tries again).
 */
export const renameUnreadableNames = (dir: string): Array<readonly [string, string]> => {
  let names: Array<Buffer>
  try {
    names = fs.readdirSync(dir, { encoding: "buffer" })
  } catch {
    return []
  }
  const renamed: Array<readonly [string, string]> = []
  const dirBytes = Buffer.from(dir)
  for (const raw of names) {
    const escaped = escapedName(raw)
    if (escaped === null) continue
    const from = Buffer.concat([dirBytes, Buffer.from(path.sep), raw])
    try {
      const stat = fs.lstatSync(from)
      let placed: string | null = null
      if (stat.isDirectory()) {
        for (let i = 0; placed === null && i < 100; i++) {
          const candidate = i === 0 ? escaped : `${escaped}-${i}`
          if (fs.existsSync(path.join(dir, candidate))) continue
          fs.renameSync(from, path.join(dir, candidate))
          placed = candidate
        }
      } else {
        placed = linkUnderFreeName(from, dir, escaped, 100)
        if (placed !== null) fs.unlinkSync(from)
      }
      if (placed !== null) renamed.push([foundName(raw), placed])
    } catch {
      // gone meanwhile, or not ours to rename: left for the next scan
    }
  }
  return renamed
}
