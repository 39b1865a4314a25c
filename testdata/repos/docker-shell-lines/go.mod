module example.com/shell

go 1.22
