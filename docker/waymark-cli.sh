#!/bin/sh
# The command line inside the container, as the same user as the daemon (never root), e.g.
#   docker compose exec waymark waymark-cli app:api-key:generate
exec waymark-entrypoint node /app/dist/cli.js "$@"
