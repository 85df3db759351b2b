import { zipBuffer } from "./zipWriter.ts"

/** A zip of the given entries, stored uncompressed (or deflated with `deflate`). */
export const zipOf = (entries: ReadonlyArray<{ readonly name: string; readonly data: Uint8Array | string }>, options: { readonly deflate?: boolean } = {}): Buffer =>
  zipBuffer(entries.map((entry) => ({ ...entry, deflate: options.deflate ?? false })))
