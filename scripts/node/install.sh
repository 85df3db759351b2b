#!/usr/bin/env bash
# Installs Node.js from the npm registry, for machines that reach only that registry (and Debian's
# mirror): the `node-linux-<arch>` package is the official release's binary with its C headers,
# and npm is installed at the version that release bundles (read from its change log; this
# machine's npm when the log does not say). Laid out as the official image lays it under
# /usr/local: bin/node, bin/npm, bin/npx, lib/node_modules/npm and include/node, the headers
# node-gyp compiles better-sqlite3 against (npm_config_nodedir=<prefix>).
#
# Each version is installed once into $WAYMARK_NODE_CACHE/<version> (default
# /var/tmp/waymark-node); npm pack checks each tarball against the registry's integrity.
#
# Usage: scripts/node/install.sh <version>    e.g. 26.12.1, or a major (26) for its newest release
# Prints the prefix on its last line.
set -euo pipefail

say() { echo "node install: $*" >&2; }
fail() { say "$*"; exit 1; }

wanted=${1:?usage: scripts/node/install.sh <version>}
CACHE=${WAYMARK_NODE_CACHE:-/var/tmp/waymark-node}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) fail "no node-linux package for $(uname -m)" ;;
esac
package=node-linux-$arch

version=$wanted
if ! printf '%s' "$wanted" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then
  # the newest release of that line the registry has
  version=$(npm view "$package@$wanted" version --json | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([v].flat().at(-1) ?? "")')
  [ -n "$version" ] || fail "the registry has no $package@$wanted"
fi

prefix=$CACHE/$version
if [ -x "$prefix/bin/node" ] && [ -x "$prefix/bin/npm" ] && [ "$("$prefix/bin/node" -p process.version)" = "v$version" ]; then
  say "Node $version is in $prefix"
  echo "$prefix"
  exit 0
fi

mkdir -p "$CACHE"
tmp=$(mktemp -d "$CACHE/.install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say "$package@$version from the npm registry into $prefix"
(cd "$tmp" && npm pack --silent "$package@$version" >/dev/null)
mkdir "$tmp/prefix"
tar -C "$tmp/prefix" --strip-components=1 --no-same-owner -xzf "$tmp/$package-$version.tgz" package/bin package/include package/share package/LICENSE
[ "$("$tmp/prefix/bin/node" -p process.version)" = "v$version" ] || fail "$package@$version does not run here"
[ -f "$tmp/prefix/include/node/node.h" ] && [ -f "$tmp/prefix/include/node/common.gypi" ] || fail "$package@$version carries no headers"

npm_version=$(tar -xzOf "$tmp/$package-$version.tgz" package/CHANGELOG.md 2>/dev/null | grep -m1 -oE 'upgrade npm to [0-9]+\.[0-9]+\.[0-9]+' | awk '{ print $4 }' || true)
[ -n "$npm_version" ] || npm_version=$(npm --version)
say "npm@$npm_version from the npm registry"
(cd "$tmp" && npm pack --silent "npm@$npm_version" >/dev/null)
mkdir -p "$tmp/prefix/lib/node_modules/npm"
tar -C "$tmp/prefix/lib/node_modules/npm" --strip-components=1 --no-same-owner -xzf "$tmp/npm-$npm_version.tgz"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/prefix/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/prefix/bin/npx"
[ "$(PATH="$tmp/prefix/bin:$PATH" "$tmp/prefix/bin/npm" --version)" = "$npm_version" ] || fail "npm@$npm_version does not run on Node $version"

rm -rf "$prefix"
mv "$tmp/prefix" "$prefix"
say "Node $version with npm $npm_version installed in $prefix"
echo "$prefix"
