#!/bin/sh
set -e
# Render the config, wait for the database, drop privileges.
envsubst < /app/config.tmpl > /app/config.toml
until pg_isready -h "$DB_HOST" -q; do sleep 1; done
if ip route | grep -q default; then echo "network up"; fi
PUID=${PUID:-911}
exec gosu "$PUID" /app/server --config /app/config.toml
