package pq
import "C"
