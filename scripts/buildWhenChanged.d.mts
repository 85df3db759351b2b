/** The types of buildWhenChanged.mjs (plain JavaScript, so that `npm start` runs it without compiling). */
export declare const BUILD_INPUTS: ReadonlyArray<string>
export declare const BUILD_OUTPUTS: ReadonlyArray<string>
export declare const STAMP: string
export declare const inputsDigest: (root: string) => string
export declare const builtAsIs: (root: string) => boolean
export declare const buildWhenChanged: (root: string, build: () => number, say?: (line: string) => void) => number
