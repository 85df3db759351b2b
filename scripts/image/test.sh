#!/usr/bin/env bash
# npm run test:image — builds the Dockerfile with buildah (chroot isolation, the base image
# pulled or assembled by scripts/image/base.sh), prints the build time and the image size,
# then runs the image's three programs and its command line and checks them from outside:
#   - the daemon (the default command) answers /healthz and /metrics, and imports a GPX file
#     dropped into its watch volume;
#   - the Polar connector (`node dist/polar.js`) and the Wahoo connector (`node dist/wahoo.js`)
#     answer /healthz as documented before anyone authorized (503, `healthy: false` and why)
#     and /metrics in the Prometheus text format (scripts/image/checkAnswer.mjs reads both);
#   - the command line (`waymark-cli app:backup`) copies the running daemon's database.
# Needs root (debootstrap, chroot), buildah, debootstrap, curl and the project's packages
# (npm ci: the Prometheus text parser); exits 1 on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

IMAGE=${WAYMARK_TEST_IMAGE:-localhost/waymark:image-test}
say() { echo "test:image: $*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap and buildah's chroot isolation); run it with sudo"
for tool in buildah debootstrap curl; do command -v "$tool" >/dev/null || fail "$tool is not installed"; done
[ -d node_modules/parse-prometheus-text-format ] || fail "the project's packages are not installed: run npm ci first"

work=$(mktemp -d /var/tmp/waymark-image-test.XXXXXX)
containers=()
groups=()
cleanup() {
  for group in "${groups[@]}"; do kill -TERM -- "-$group" 2>/dev/null || true; done
  sleep 1
  for group in "${groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null || true; done
  for ctr in "${containers[@]}"; do buildah rm "$ctr" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s)
base=$(scripts/image/base.sh Dockerfile | tail -1)
say "base image $base ready in $(($(date +%s) - started)) s"

# the build's output (apt, npm, the compiler) is shown only when it fails
build_started=$(date +%s)
buildah bud --isolation chroot --pull=never --layers --format docker -t "$IMAGE" . >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log" >&2; fail "buildah bud of the Dockerfile failed"; }
say "image $IMAGE built in $(($(date +%s) - build_started)) s ($(grep -c 'Using cache' "$work/build.log" || true) steps from the cache)"
say "image size: $(buildah images --format '{{.Size}}' "$IMAGE" | head -1)"

free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'; }

# `container name`: a fresh working container of the image, its id in $ctr. buildah run mounts a
# fresh volume over each VOLUME of the image, and with two of them it does so over the folders
# bound with -v too: this working container declares none (the image is unchanged), so that the
# folders bound by `buildah run -v` are the ones the program sees.
container() {
  ctr=$(buildah from --pull=never --name "waymark-test-$1-$$" "$IMAGE")
  containers+=("$ctr")
  local volume
  for volume in $(buildah inspect --format '{{range $v, $_ := .OCIv1.Config.Volumes}}{{$v}} {{end}}' "$ctr"); do
    buildah config --volume "$volume-" "$ctr"
  done
}

# `start name [buildah run options] -- command...`: runs the command in a fresh working
# container of the image, in its own process group (so that the cleanup stops it and its
# children), its output in $work/<name>.log.
start() {
  local name=$1
  shift
  local options=()
  while [ "$1" != -- ]; do options+=("$1"); shift; done
  shift
  container "$name"
  setsid buildah run --isolation chroot "${options[@]}" "$ctr" -- "$@" >"$work/$name.log" 2>&1 &
  groups+=("$!")
}

# Waits up to $3 seconds for `curl $2` to answer one of the statuses $1 (e.g. "200" or "200|503");
# the answer's headers are left in $work/headers, its body in $work/answer.
expect_status() {
  local wanted=$1 url=$2 timeout=$3 status=000
  shift 3
  for _ in $(seq "$timeout"); do
    status=$(curl -sk -D "$work/headers" -o "$work/answer" -w '%{http_code}' --max-time 2 "$@" "$url" || true)
    if printf '%s' "$status" | grep -Eqx "$wanted"; then return 0; fi
    sleep 1
  done
  say "$url answered $status, expected $wanted; last body: $(head -c 300 "$work/answer" 2>/dev/null)"
  return 1
}

# Checks the last answer (`check_answer unauthorized` or `check_answer metrics <service> ...`).
check_answer() { node scripts/image/checkAnswer.mjs "$1" "$work/headers" "$work/answer" "${@:2}"; }

key=wmk_$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
daemon_port=$(free_port)
polar_port=$(free_port)
wahoo_port=$(free_port)
mkdir -p "$work/storage" "$work/watch" "$work/polar-state" "$work/polar-tokens" "$work/polar-watch" "$work/wahoo-data"
# as fresh named volumes would be: owned by the image's "node" user (uid and gid 1000)
chown 1000:1000 "$work/storage" "$work/watch" "$work/polar-state" "$work/polar-tokens" "$work/polar-watch" "$work/wahoo-data"

start daemon -v "$work/storage:/app/storage" -v "$work/watch:/app/watch" \
  --env PORT="$daemon_port" --env SERVICE_API_KEY="$key" -- waymark-entrypoint node dist/main.js
start polar -v "$work/polar-state:/state" -v "$work/polar-tokens:/tokens" -v "$work/polar-watch:/watch" \
  --env HTTP_ADDR="127.0.0.1:$polar_port" --env PROVIDER_A_CLIENT_ID=image-test --env PROVIDER_A_CLIENT_SECRET=image-test \
  -- waymark-entrypoint node dist/polar.js
start wahoo -v "$work/wahoo-data:/data" \
  --env PORT="$wahoo_port" --env HOST=127.0.0.1 --env PROVIDER_B_CLIENT_ID=image-test --env PROVIDER_B_CLIENT_SECRET=image-test \
  -- waymark-entrypoint node dist/wahoo.js

show_logs() { for log in "$work"/*.log; do echo "--- $(basename "$log")"; tail -20 "$log"; done >&2; }
check() { "$@" || { show_logs; fail "$*"; }; }

check expect_status 200 "http://127.0.0.1:$daemon_port/healthz" 90
say "daemon: /healthz 200"
check expect_status 401 "http://127.0.0.1:$daemon_port/metrics" 5
check expect_status 200 "http://127.0.0.1:$daemon_port/metrics" 5 -H "Authorization: Bearer $key"
check check_answer metrics waymark waymark_http_request_duration_seconds:histogram waymark_import_queue_length:gauge
say "daemon: /metrics 401 without the key, 200 with it, in the Prometheus text format"

# a file dropped into the watch volume is imported (written aside, then renamed in, as a copy would end)
cat >"$work/ride.gpx.part" <<'GPX'
<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="waymark image test" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>Image test ride</name><type>cycling</type><trkseg>
    <trkpt lat="50.8503" lon="4.3517"><ele>60</ele><time>2024-05-01T08:00:00Z</time></trkpt>
    <trkpt lat="50.8513" lon="4.3537"><ele>61</ele><time>2024-05-01T08:00:30Z</time></trkpt>
    <trkpt lat="50.8523" lon="4.3557"><ele>62</ele><time>2024-05-01T08:01:00Z</time></trkpt>
    <trkpt lat="50.8533" lon="4.3577"><ele>63</ele><time>2024-05-01T08:01:30Z</time></trkpt>
    <trkpt lat="50.8543" lon="4.3597"><ele>64</ele><time>2024-05-01T08:02:00Z</time></trkpt>
  </trkseg></trk>
</gpx>
GPX
chown 1000:1000 "$work/ride.gpx.part"
mv "$work/ride.gpx.part" "$work/watch/ride.gpx"
imported=no
for _ in $(seq 60); do
  if curl -s --max-time 2 -H "Authorization: Bearer $key" "http://127.0.0.1:$daemon_port/api/v1/file-imports" | grep -q '"status":"success"'; then
    imported=yes
    break
  fi
  sleep 1
done
[ "$imported" = yes ] || { show_logs; fail "the file dropped into the watch volume was not imported within 60 s"; }
curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$daemon_port/api/v1/activities" >"$work/activities"
grep -q 'Image test ride' "$work/activities" || { show_logs; fail "the imported activity is not listed"; }
# named after the nearest city: the compact city data of dist/ is read in the image
grep -q '"city":"[^"]' "$work/activities" || { show_logs; fail "the imported activity has no city: $(head -c 300 "$work/activities")"; }
check expect_status 200 "http://127.0.0.1:$daemon_port/metrics" 5 -H "Authorization: Bearer $key"
check check_answer metrics waymark 'waymark_imports_total{outcome=success,format=gpx}=1'
say "daemon: the file dropped into the watch volume was imported, listed and counted"

# before anyone authorized, both connectors answer 503 with healthy: false and the reason
check expect_status 503 "http://127.0.0.1:$polar_port/healthz" 60
check check_answer unauthorized
say "polar: /healthz 503 until authorized: $(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).reason' "$work/answer")"
check expect_status 200 "http://127.0.0.1:$polar_port/metrics" 5
# its first cycle runs at start (and fails for want of an authorization): counted
check check_answer metrics waymark-polar waymark_connector_cycles_total:counter
say "polar: /metrics in the Prometheus text format"
check expect_status 503 "https://127.0.0.1:$wahoo_port/healthz" 60
check check_answer unauthorized
say "wahoo: /healthz 503 until authorized: $(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).reason' "$work/answer")"
check expect_status 200 "https://127.0.0.1:$wahoo_port/metrics" 5
check check_answer metrics waymark-wahoo
say "wahoo: /metrics in the Prometheus text format"

# the command line (`waymark-cli`, the short form of `node dist/cli.js`) beside the running
# daemon: a consistent copy of its database, holding the imported ride
container cli
buildah run --isolation chroot -v "$work/storage:/app/storage" "$ctr" -- waymark-cli app:backup /app/storage/image-test-backup.sqlite \
  >"$work/cli.log" 2>&1 || { show_logs; fail "waymark-cli app:backup failed"; }
[ "$(head -c 15 "$work/storage/image-test-backup.sqlite" 2>/dev/null)" = "SQLite format 3" ] ||
  { show_logs; fail "waymark-cli app:backup wrote no SQLite database"; }
grep -aq 'Image test ride' "$work/storage/image-test-backup.sqlite" || { show_logs; fail "the backup does not hold the imported ride"; }
say "cli: app:backup copied the running daemon's database, the imported ride in it"

say "passed in $(($(date +%s) - started)) s"
