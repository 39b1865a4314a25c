'use strict';

const Util = require('./Util');

module.exports = class Tunnel {

  async up() {
    const key = await Util.exec('wg genkey');
    await Util.exec(`echo ${key} | wg pubkey`);
    // await Util.exec('ffmpeg -version');
    await Util.exec('wg-quick up wg0');
  }

};
