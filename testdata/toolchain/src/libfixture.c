/* A stand-in shared library (libpq, libsqlite3): one function a test
   program can link against and call, to prove the -dev package works. */
const char *fixture_library_name(void) { return LIBRARY_NAME; }
