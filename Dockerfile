# Waymark: one image for the daemon and its two connectors.
#   docker run ... waymark                      the daemon (default command, port 8080)
#   docker run ... waymark node dist/polar.js   connector A (Polar), port 8080 inside
#   docker run ... waymark node dist/wahoo.js   connector B (Wahoo), port 8085 inside
#   docker exec ... waymark-cli <command>       the command line, e.g. app:api-key:generate
# PUID, PGID, UMASK and TZ are applied by docker/entrypoint.sh; no program runs as root.

# Node 26, the Active LTS line (20 reached its end of life in April 2026), at the release CI
# tests (.ci/run reads it here); on it the watch folder is watched by chokidar 6, installed
# by npm ci as an optional dependency that only Node 22.22 and later take
ARG NODE_IMAGE=node:26.12.1-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 is compiled here, against this Node and this libc, never downloaded prebuilt:
# the packages are installed without their install scripts (esbuild's only checks its binary,
# @parcel/watcher and msgpackr-extract ship prebuilt ones the image does not use), then
# better-sqlite3's own release build runs with npm's node-gyp
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier \
 && npm run --prefix node_modules/better-sqlite3 --no-update-notifier build-release
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/buildCityData.ts scripts/buildDashboard.ts scripts/bundlePrograms.ts ./scripts/
# the compiled programs, the dashboard's bundle and the compact city data in dist/, then only
# what running them needs: the production packages without the compiler, tsx and its esbuild;
# better-sqlite3's addon without its C sources and object files; no country-state-city JSON
# (dist/data/cities.bin is built from it); no TypeScript sources, declarations, source maps,
# read-mes, change logs, tests or examples of any package
RUN npm run build --no-update-notifier \
 && npm prune --omit=dev --no-audit --no-fund --no-update-notifier \
 && rm -rf node_modules/typescript node_modules/tsx node_modules/esbuild node_modules/@esbuild \
    node_modules/country-state-city \
 && (cd node_modules/better-sqlite3 \
     && mv build/Release/better_sqlite3.node . \
     && rm -rf build deps src \
     && mkdir -p build/Release \
     && mv better_sqlite3.node build/Release/) \
 && find node_modules -type d \( -name test -o -name tests -o -name __tests__ -o -name example -o -name examples \) -prune -exec rm -rf {} + \
 && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' \
    -o -iname 'README*' -o -iname 'CHANGELOG*' -o -iname 'HISTORY*' \) -delete \
 && find node_modules -depth -type d -empty -delete

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
# the zone database TZ names are checked against (not every Debian base carries it), and the
# font the share cards' text is drawn in (resvg draws no text without one; the slim base has none)
RUN apt-get update \
 && apt-get install -y --no-install-recommends tzdata fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY assets ./assets
COPY docker/entrypoint.sh /usr/local/bin/waymark-entrypoint
COPY docker/waymark-cli.sh /usr/local/bin/waymark-cli
COPY docker/healthcheck.mjs /usr/local/lib/waymark/healthcheck.mjs
# the folders of the three programs, owned by the unprivileged "node" user (uid and gid 1000)
# so that fresh volumes start with that owner
RUN chmod 0755 /usr/local/bin/waymark-entrypoint /usr/local/bin/waymark-cli \
 && mkdir -p /app/storage /app/watch /state /tokens /data/config /data/downloads \
 && chown node:node /app/storage /app/watch /state /tokens /data /data/config /data/downloads
VOLUME ["/app/storage", "/app/watch"]
EXPOSE 8080 8085
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/usr/local/lib/waymark/healthcheck.mjs"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["waymark-entrypoint"]
CMD ["node", "dist/main.js"]
