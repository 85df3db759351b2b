#!/bin/sh
# Entry point of the Waymark image: one image, three programs (the daemon, the Polar and the
# Wahoo connector) plus the command line.
#
#   UMASK       octal umask for every file the program creates (e.g. 002, 0027)
#   TZ          time zone name (e.g. Europe/Paris); checked against the zone database
#   PUID, PGID  the user and group the program runs as (default 1000:1000, the image's
#               "node" user); never 0
#
# Started as root (the default), it hands the program's own folders to PUID:PGID (the
# daemon's storage folder and the top of its watch folder; a connector's state and token
# folders, never the shared watch folder) and drops to that user before the program starts:
# no program of the image runs as root. Started as another user already (`user:` in compose,
# `--user`, runAsUser), it runs the program as that user and changes no ownership.
#
# `polar`, `wahoo`, `waymark` and `waymark-cli` are short forms of `node dist/<program>.js`.
set -eu

APP_DIR=/app

fail() {
  echo "waymark-entrypoint: $*" >&2
  exit 1
}

note() {
  echo "waymark-entrypoint: $*" >&2
}

# Variables set but blank count as unset, as they do for the programs themselves.
is_set() {
  eval "value=\${$1:-}"
  [ -n "$value" ]
}

case "${1:-}" in
  waymark) shift; set -- node "$APP_DIR/dist/main.js" "$@" ;;
  polar) shift; set -- node "$APP_DIR/dist/polar.js" "$@" ;;
  wahoo) shift; set -- node "$APP_DIR/dist/wahoo.js" "$@" ;;
  waymark-cli) shift; set -- node "$APP_DIR/dist/cli.js" "$@" ;;
esac

if is_set UMASK; then
  printf '%s' "$UMASK" | grep -Eq '^[0-7]{3,4}$' || fail "UMASK must be an octal mask such as 022 or 0027, got '$UMASK'"
  umask "$UMASK"
fi

if is_set TZ; then
  zone=${TZ#:}
  case "$zone" in
    /*) zone_file=$zone ;;
    *) zone_file=/usr/share/zoneinfo/$zone ;;
  esac
  [ -f "$zone_file" ] || fail "TZ '$TZ' is not a known time zone (expected a name such as Europe/Paris or UTC)"
fi

# The program this container runs, from the first `dist/<name>.js` among the arguments.
program=other
for arg in "$@"; do
  case "$arg" in
    */dist/main.js | dist/main.js) program=daemon; break ;;
    */dist/cli.js | dist/cli.js) program=cli; break ;;
    */dist/polar.js | dist/polar.js) program=polar; break ;;
    */dist/wahoo.js | dist/wahoo.js) program=wahoo; break ;;
  esac
done

# A folder setting relative to the working directory, as the programs read it.
absolute() {
  case "$1" in
    /*) printf '%s' "$1" ;;
    *) printf '%s/%s' "$(pwd)" "${1#./}" ;;
  esac
}

uid=$(id -u)
if [ "$uid" -ne 0 ]; then
  if is_set PUID && [ "$PUID" != "$uid" ]; then
    note "PUID=$PUID ignored: the container was started as uid $uid, which is kept"
  fi
  exec "$@"
fi

target_uid=${PUID:-1000}
target_gid=${PGID:-1000}
[ -n "$target_uid" ] || target_uid=1000
[ -n "$target_gid" ] || target_gid=1000
printf '%s' "$target_uid" | grep -Eq '^[0-9]+$' || fail "PUID must be a numeric user id, got '$target_uid'"
printf '%s' "$target_gid" | grep -Eq '^[0-9]+$' || fail "PGID must be a numeric group id, got '$target_gid'"
[ "$target_uid" -ne 0 ] || fail "PUID=0: the programs of this image never run as root; choose the id that owns your folders"
[ "$target_gid" -ne 0 ] || fail "PGID=0: the programs of this image never run in the root group; choose the group that owns your folders"

# Hands a folder and everything in it to PUID:PGID, touching only what is owned by someone else.
own_tree() {
  mkdir -p "$1"
  find "$1" -xdev \( ! -user "$target_uid" -o ! -group "$target_gid" \) -exec chown -h "$target_uid:$target_gid" {} +
}

# Hands only the folder itself (not what is in it) to PUID:PGID.
own_folder() {
  mkdir -p "$1"
  chown "$target_uid:$target_gid" "$1"
}

case "$program" in
  daemon | cli)
    own_tree "$(absolute "${STORAGE_DIR:-./storage}")"
    own_folder "$(absolute "${WATCH_DIR:-./watch}")"
    ;;
  polar)
    own_tree "$(absolute "${STATE_DIR:-/state}")"
    own_tree "$(absolute "${POLAR_TOKENS:-/tokens}")"
    ;;
  wahoo)
    data_dir=${DATA_DIR:-/data}
    own_tree "$(absolute "${STATE_DIR:-$data_dir/config}")"
    ;;
esac

if [ "$target_uid" = "$(id -u node 2>/dev/null || echo none)" ]; then
  HOME=/home/node
else
  HOME=/tmp
fi
export HOME

exec setpriv --reuid="$target_uid" --regid="$target_gid" --clear-groups -- "$@"
