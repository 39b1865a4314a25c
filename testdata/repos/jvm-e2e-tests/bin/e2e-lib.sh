# Sourced by bin/e2e: helpers for the end-to-end suite.
check_media() {
  ffprobe -v error server/src/test/resources/sample.mp4
}
