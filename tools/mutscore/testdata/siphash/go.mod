module github.com/dchest/siphash

go 1.16
