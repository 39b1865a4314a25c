const childProcessAsync = require("promisify-child-process");

async function send(url, body) {
    const s = await childProcessAsync.spawn("apprise", ["-b", body, "--", url], { encoding: "utf8" });
    return s.stdout;
}

module.exports = { send };
