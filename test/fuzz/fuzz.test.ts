import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { MAX_IMPORT_MESSAGE_LENGTH } from "../../src/schema/ActivityLimits.ts"
import { validateActivity } from "../../src/services/activities/validateActivity.ts"
import { ParseLimits, ParseWorker } from "../../src/services/import/ParseWorker.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../support/corpus.ts"
import { scopedRoot, servicesLayer } from "../support/ImportHarness.ts"
import { loggedMessages } from "../support/loggedMessages.ts"
import { corpusSources, mutatedFiles } from "./mutateActivityFile.ts"

/**
 * Seeded mutations of the corpus (bit flips, truncations, splices, absurd numbers and dates,
 * inflated sizes, deep nesting) through the real parse worker, which parses, computes and
 * checks each file as an import does: every file ends with activities that pass the check
 * before storing, or with a plain message naming the file; none reaches the worker's time or
 * memory limit (which would replace the worker). `npm run fuzz` runs many more through the
 * built daemon.
 */

const SEED = 20_260_501
const COUNT = 300

describe.skipIf(!CORPUS_DIR)("fuzz: mutated activity files through the parse worker", () => {
  it.scopedLive(`${COUNT} mutated FIT, TCX and GPX files each end as valid activities or a clear failure, within the limits`, () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const { logged, layer: collectLogs } = loggedMessages()
      yield* Effect.gen(function*() {
        const worker = yield* ParseWorker
        const limits = yield* ParseLimits
        const outcomes = { imported: 0, failed: 0 }
        // small sources and files, so that the run stays well under a minute on a shared machine
        for (const file of mutatedFiles(corpusSources(300_000), COUNT, SEED, { maxBytes: 500_000 })) {
          const label = `${file.name} (${file.source}, ${file.bytes.length} bytes)`
          const started = performance.now()
          const outcome = yield* Effect.either(worker.parse(new Uint8Array(file.bytes), file.format, file.name))
          const millis = performance.now() - started
          if (outcome._tag === "Right") {
            outcomes.imported++
            for (const draft of outcome.right) {
              const check = validateActivity(draft)
              expect(check._tag === "Impossible" ? check.reason : "valid", label).toBe("valid")
            }
          } else {
            outcomes.failed++
            const message = outcome.left.message
            expect(message.startsWith(`"${file.name}"`), `${label}: ${message}`).toBe(true)
            expect(message.length, label).toBeLessThanOrEqual(MAX_IMPORT_MESSAGE_LENGTH)
            expect(message, label).not.toMatch(/took more than|ran out of memory|the parser (failed|stopped)|could not be imported: [A-Z]\w*Error/)
          }
          expect(millis, label).toBeLessThan(Duration.toMillis(limits.timeout))
        }
        expect(outcomes.imported + outcomes.failed).toBe(COUNT)
        // both ends are reached: the mutations are neither all harmless nor all fatal
        expect(outcomes.imported).toBeGreaterThan(COUNT / 20)
        expect(outcomes.failed).toBeGreaterThan(COUNT / 4)
        expect(logged.filter((l) => l.startsWith("parse worker replaced"))).toEqual([])
      }).pipe(Effect.provide(servicesLayer(root)), Effect.provide(collectLogs))
    }), { timeout: 60_000 })
})

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)
