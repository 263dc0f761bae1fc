//go:build !amd64

package main

func leaf7() {}

func execute(string) bool { return false }
