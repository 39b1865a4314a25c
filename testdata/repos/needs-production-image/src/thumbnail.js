import { execFile } from "node:child_process";

// The thumbnails the tests render: the code runs ffmpeg itself.
export function thumbnail(input, output) {
  return new Promise((resolve, reject) =>
    execFile("ffmpeg", ["-i", input, "-frames:v", "1", output], (err) => (err ? reject(err) : resolve(output))));
}
