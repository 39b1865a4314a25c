#include <stdio.h>
void greet(const char* who) { printf("hello, %s, from libgreet\n", who); }
