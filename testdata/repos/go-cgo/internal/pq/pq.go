package pq

/*
#cgo pkg-config: libpq
#include <libpq-fe.h>
*/
import "C"

func Version() int { return int(C.PQlibVersion()) }
