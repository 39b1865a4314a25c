/* A static stand-in for a shell: prints its name and arguments, so a test
   can run it with chroot in an image that has no libc. */
#include <stdio.h>

int main(int argc, char** argv) {
  printf("tinysh");
  for (int i = 1; i < argc; ++i) printf(" %s", argv[i]);
  printf("\n");
  return 0;
}
