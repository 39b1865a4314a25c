#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
  const char* name = strrchr(argv[0], '/');
  printf("static hello via %s\n", name ? name + 1 : argv[0]);
  return 0;
}
