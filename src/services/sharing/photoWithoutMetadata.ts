/**
 * A photo as a share link serves it: without the metadata a camera or a phone writes into it
 * (EXIF with the GPS position where it was taken, XMP, comments), which would give away a
 * place the track hides. JPEG keeps its image segments (APP0/JFIF, the tables, the frames and
 * the scan) and drops APP1 to APP15 and COM; PNG keeps its critical chunks and those that
 * change how it looks, and drops text, time and EXIF chunks. Any other type (WebP) is not
 * served: null.
 */

const JPEG_DROPPED = (marker: number) => (marker >= 0xe1 && marker <= 0xef) || marker === 0xfe

const jpegWithoutMetadata = (bytes: Uint8Array): Uint8Array | null => {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null
  const kept: Array<Uint8Array> = [bytes.subarray(0, 2)]
  let i = 2
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) return null
    const marker = bytes[i + 1]!
    // start of scan: the entropy-coded data and everything after it are the image
    if (marker === 0xda) {
      kept.push(bytes.subarray(i))
      return Buffer.concat(kept)
    }
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!
    if (length < 2 || i + 2 + length > bytes.length) return null
    if (!JPEG_DROPPED(marker)) kept.push(bytes.subarray(i, i + 2 + length))
    i += 2 + length
  }
  return null
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const PNG_KEPT = new Set(["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "pHYs", "bKGD"])

const pngWithoutMetadata = (bytes: Uint8Array): Uint8Array | null => {
  if (!PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return null
  const kept: Array<Uint8Array> = [bytes.subarray(0, 8)]
  let i = 8
  while (i + 12 <= bytes.length) {
    const length = ((bytes[i]! << 24) >>> 0) + (bytes[i + 1]! << 16) + (bytes[i + 2]! << 8) + bytes[i + 3]!
    const type = String.fromCharCode(bytes[i + 4]!, bytes[i + 5]!, bytes[i + 6]!, bytes[i + 7]!)
    const end = i + 12 + length
    if (end > bytes.length) return null
    if (PNG_KEPT.has(type)) kept.push(bytes.subarray(i, end))
    i = end
    if (type === "IEND") return Buffer.concat(kept)
  }
  return null
}

export const photoWithoutMetadata = (bytes: Uint8Array): { readonly bytes: Uint8Array; readonly contentType: string } | null => {
  const jpeg = jpegWithoutMetadata(bytes)
  if (jpeg !== null) return { bytes: jpeg, contentType: "image/jpeg" }
  const png = pngWithoutMetadata(bytes)
  if (png !== null) return { bytes: png, contentType: "image/png" }
  return null
}
