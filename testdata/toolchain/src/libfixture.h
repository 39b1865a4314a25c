/* The stand-in library's interface (installed as libpq-fe.h, sqlite3.h). */
const char *fixture_library_name(void);
