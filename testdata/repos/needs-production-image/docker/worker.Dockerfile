# One Dockerfile, several images (`docker build --target`): a stage another
# reads from is a builder; one nothing reads is an image of its own; a
# target named for testing is how the repository is tested.
FROM debian:bookworm-slim AS deps
RUN apt-get update && apt-get install -y --no-install-recommends curl

FROM debian:bookworm-slim AS worker
RUN apt-get update && apt-get install -y --no-install-recommends tini

FROM debian:bookworm-slim AS test
RUN apt-get update && apt-get install -y --no-install-recommends strace

FROM debian:bookworm-slim
COPY --from=deps /usr/bin/curl /usr/bin/curl
RUN apt-get update && apt-get install -y --no-install-recommends jq

# The last stage is a development one built FROM the service image: the
# service image is still what ships.
FROM debian:bookworm-slim AS service
RUN apt-get update && apt-get install -y --no-install-recommends gosu

FROM service AS dev
RUN apt-get update && apt-get install -y --no-install-recommends gdb
