module example.com/pushd

go 1.22
