module example.com/blogd

go 1.21

require github.com/gorilla/mux v1.8.1
