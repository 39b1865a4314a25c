module example.com/bookmarks

go 1.22

require (
	github.com/go-chi/chi/v5 v5.0.12
	github.com/mattn/go-sqlite3 v1.14.22
)

require golang.org/x/sys v0.21.0 // indirect
