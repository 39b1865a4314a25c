package main

import (
	"log"
	"net/http"

	"example.com/feeds/internal/server"
)

func main() {
	// A server alone needs no CA roots.
	log.Fatal(http.ListenAndServe(":8080", server.New()))
}
