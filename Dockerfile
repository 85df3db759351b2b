# Waymark: one container, embedded SQLite, storage and watch folder as volumes.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
# compiled daemon and the compact city data in dist/, then only the runtime packages
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production STORAGE_DIR=/app/storage WATCH_DIR=/app/watch PORT=8080 HOST=0.0.0.0
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY assets ./assets
RUN mkdir -p /app/storage /app/watch && chown -R node:node /app/storage /app/watch
USER node
VOLUME ["/app/storage", "/app/watch"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/openapi.yaml').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# the CLI: docker compose exec waymark node dist/cli.js app:api-key:generate
CMD ["node", "dist/main.js"]
