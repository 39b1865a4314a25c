module example.com/feeds

go 1.22

require github.com/gorilla/mux v1.8.1
