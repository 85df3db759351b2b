import * as v8 from "node:v8"

/**
 * The daemon's heap kept small: V8 then grows the heap by small steps and collects before
 * growing, where by default it lets a busy import or API grow the young generation to 32 MB
 * and the old one by hundreds of MB of garbage before collecting, and keeps what it grew. The
 * daemon spends far more of its life idle than busy, on machines it shares. Imported first by
 * the entry point, so that the heap is small from the start (the parse worker inherits it).
 */
v8.setFlagsFromString("--optimize-for-size")
