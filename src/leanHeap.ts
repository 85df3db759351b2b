import * as v8 from "node:v8"

/**
 * The daemon's heap kept small. By default V8 doubles the young generation whenever much of it
 * survives a collection (module loading at start does) up to 32 MB, keeps it, and lets a busy
 * import grow the old generation by hundreds of MB of garbage before collecting. Here the young
 * generation keeps its initial size and the old one grows by 15 % past what survives. Both
 * are read by V8 at each collection, so setting them here, in the module the entry point
 * imports first, applies to the whole process (the parse worker included). A heap tuned for
 * size as a whole (optimize-for-size) halved the import rate; these two do not.
 */
v8.setFlagsFromString("--semi-space-growth-factor=1")
v8.setFlagsFromString("--heap-growing-percent=15")
