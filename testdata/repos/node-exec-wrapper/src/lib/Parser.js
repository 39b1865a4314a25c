'use strict';

// No wrapper here: a RegExp's exec with a literal is not a command.
const pattern = /^v(\d+)/;
module.exports = (s) => pattern.exec('git 2.39') || pattern.exec(s);
