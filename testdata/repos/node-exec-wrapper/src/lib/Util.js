'use strict';

const childProcess = require('child_process');

module.exports = class Util {

  static async exec(cmd, { log = true } = {}) {
    if (log) console.log(`$ ${cmd}`);
    return new Promise((resolve, reject) => {
      childProcess.exec(cmd, { shell: 'bash' }, (err, stdout) => {
        if (err) return reject(err);
        return resolve(String(stdout).trim());
      });
    });
  }

};
