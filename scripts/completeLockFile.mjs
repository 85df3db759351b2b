// Usage: node scripts/completeLockFile.mjs package-lock.json   (after any npm install that rewrites the lock)
// Adds lock entries for platform-specific optional dependencies that the registry reachable
// from this machine does not serve at the pinned version (npm 11 drops them from the lock,
// then npm ci rejects the lock: npm/cli#9846). Version pinned as declared by the parent;
// os/cpu/libc/license/engines copied from the newest published version of the same package.
// No integrity (the tarball is not downloadable here); no resolved (omit-lockfile-registry-resolved).
import fs from 'node:fs'
const file = process.argv[2]
const lock = JSON.parse(fs.readFileSync(file, 'utf8'))
const pk = lock.packages
const reg = 'https://registry.npmjs.org/'
const semverKey = v => v.split(/[.-]/).map(x => x.padStart(8, '0')).join('.')
const added = []
for (const [loc, e] of Object.entries(pk)) {
  if (!e.optionalDependencies) continue
  for (const [name, spec] of Object.entries(e.optionalDependencies)) {
    if (!/^\d+\.\d+\.\d+$/.test(spec)) continue          // only exact pins (platform packages)
    // resolution: walk up from loc
    let dir = loc, found = false
    while (true) {
      const cand = (dir ? dir + '/' : '') + 'node_modules/' + name
      if (pk[cand]) { found = true; break }
      if (!dir) break
      const i = dir.lastIndexOf('/node_modules/')
      dir = i < 0 ? '' : dir.slice(0, i)
    }
    if (found) continue
    const res = await fetch(reg + name.replace('/', '%2f'), { headers: { accept: 'application/vnd.npm.install-v1+json' } })
    const doc = await res.json()
    if (doc.versions?.[spec]) throw new Error(`${name}@${spec} exists; regenerate with npm instead`)
    const vs = Object.keys(doc.versions).sort((a, b) => semverKey(a) < semverKey(b) ? -1 : 1)
    const ref = doc.versions[vs.at(-1)]
    const entry = { version: spec }
    if (ref.cpu) entry.cpu = ref.cpu
    if (e.dev) entry.dev = true
    if (e.devOptional) entry.devOptional = true
    if (ref.libc) entry.libc = ref.libc
    if (ref.license) entry.license = ref.license
    entry.optional = true
    if (ref.os) entry.os = ref.os
    if (ref.engines) entry.engines = ref.engines
    pk['node_modules/' + name] = entry
    added.push(`${name}@${spec} (metadata from ${vs.at(-1)})`)
  }
}
const sorted = {}
const keys = Object.keys(pk).sort((a, b) => a.localeCompare(b, 'en'))
for (const k of keys) sorted[k] = pk[k]
lock.packages = sorted
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(added.join('\n'))
console.error(`added ${added.length} entries`)
