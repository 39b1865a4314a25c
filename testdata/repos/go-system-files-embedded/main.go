package main

import (
	"fmt"
	"net/http"
	"time"
	_ "time/tzdata"

	_ "golang.org/x/crypto/x509roots/fallback"
)

func main() {
	loc, _ := time.LoadLocation("Europe/Paris")
	resp, err := http.Get("https://example.com/")
	if err == nil {
		resp.Body.Close()
	}
	fmt.Println(time.Now().In(loc))
}
