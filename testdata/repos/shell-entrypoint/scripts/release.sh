#!/bin/sh
# Runs on a maintainer's machine: nothing here is needed in the image.
git tag "v$1" && git push --tags
curl -fsS https://api.example.com/release -d "v$1"
