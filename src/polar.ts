import { runPolar } from "./runtime/PolarProgram.ts"

/**
 * Entry of the Polar connector: `node dist/polar.js [login | sync-once [--dry-run] | status |
 * webhook register|show|delete | help]`; without a subcommand it runs until stopped (SIGTERM
 * or SIGINT, exit code 0). Started as every Waymark program is (runtime/EntryPoint): 0 done,
 * 1 failed (invalid settings listed, else one sentence), 2 called wrongly.
 */
runPolar()
