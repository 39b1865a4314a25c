import { execFile, exec } from "node:child_process";

export function ping(host: string): Promise<string> {
    return new Promise((resolve, reject) => {
        execFile("ping", ["-c", "1", host], (err, out) => (err ? reject(err) : resolve(out)));
    });
}

export function vacuum(dbFile: string) {
    exec(`sqlite3 ${dbFile} "VACUUM;"`);
}
