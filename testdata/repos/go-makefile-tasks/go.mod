module example.com/tasks

go 1.21
