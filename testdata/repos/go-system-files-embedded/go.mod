module example.com/static

go 1.22

require golang.org/x/crypto v0.24.0
