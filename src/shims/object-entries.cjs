// node-polyglot requires the object.entries polyfill, which drags ~15 kB of ES5 shims into the
// bundle; every browser we support has Object.entries.
module.exports = Object.entries;
