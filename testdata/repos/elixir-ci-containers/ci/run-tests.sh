#!/bin/sh
# Run from ci/: the compose file is the repository's.
set -e
cd ..
docker compose pull
docker compose build app
