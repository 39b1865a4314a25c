module example.com/feeds

go 1.21

require (
	github.com/mattn/go-sqlite3 v1.14.17
	modernc.org/sqlite v1.29.5
)
