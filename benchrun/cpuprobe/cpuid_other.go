//go:build !amd64

package main

func leaf7() {}
