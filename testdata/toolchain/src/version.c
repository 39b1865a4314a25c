/* A stand-in for a runtime's binary: prints the version it was built with
   (-DVERSION_TEXT="…") whatever the arguments, as `node --version` would. */
#include <stdio.h>

int main(void) {
  puts(VERSION_TEXT);
  return 0;
}
