module example.com/cgo-svc

go 1.21
