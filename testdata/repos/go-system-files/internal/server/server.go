package server

import "net/http"

func New() http.Handler { return http.NewServeMux() }
