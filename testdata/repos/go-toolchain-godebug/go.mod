module github.com/acme/svc

go 1.22.0

godebug (
	default=go1.21
	panicnil=1
)

toolchain go1.23.4

require (
	github.com/mattn/go-sqlite3 v1.14.22
	golang.org/x/sync v0.7.0
)
