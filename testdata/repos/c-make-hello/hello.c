#include <math.h>
#include <stdio.h>

int main(void) {
  printf("hello from a provisioned image: sqrt(2) = %.3f\n", sqrt(2.0));
  return 0;
}
