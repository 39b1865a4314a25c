module.exports = require("./build/Release/native_sum.node");
