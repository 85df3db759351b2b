import * as v8 from "node:v8"

/**
 * The daemon's heap kept small. By default V8 doubles the young generation whenever much of it
 * survives a collection (module loading at start does) up to 16 MB a semi-space, keeps it, and
 * lets a busy import grow the old generation by hundreds of MB of garbage before collecting.
 * Here the young generation keeps its initial size while the daemon starts, and the old one
 * grows by 15 % past what survives. Both are read by V8 at each collection, so setting them
 * here, in the module the entry point imports first, applies to the whole process (the parse
 * workers included, whose young generation has its own bound). A heap tuned for size as a
 * whole (optimize-for-size) halved the import rate; these do not.
 */
v8.setFlagsFromString("--semi-space-growth-factor=1")
v8.setFlagsFromString("--heap-growing-percent=15")

/**
 * Once the daemon serves, its young generation may grow again under load. Kept at its initial
 * 1 MB, a collection ran every few requests and promoted what the requests in flight held (a
 * response, its spans), so that full collections came every few hundred requests: traced page
 * reads ran at half the rate with twice the p99. Grown, it stays grown (about 30 MB more), but
 * only a daemon that was busy pays for it.
 */
export const youngGenerationMayGrow = () => v8.setFlagsFromString("--semi-space-growth-factor=2")
