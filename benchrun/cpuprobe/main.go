// Command cpuprobe prints the CPU features golang.org/x/sys/cpu sees, one "name true|false" line each, so that
// package benchrun can compare what code sees on the host with what it sees under valgrind (benchrun.HiddenFeatures).
package main

import (
	"fmt"
	"reflect"
	"strings"

	"golang.org/x/sys/cpu"
)

func main() {
	for _, set := range []struct {
		arch string
		v    any
	}{{"x86", cpu.X86}, {"arm64", cpu.ARM64}} {
		v := reflect.ValueOf(set.v)
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if name, ok := strings.CutPrefix(f.Name, "Has"); ok && f.Type.Kind() == reflect.Bool {
				println2(set.arch+"."+strings.ToLower(name), v.Field(i).Bool())
			}
		}
	}
	leaf7()
}

func println2(name string, on bool) { fmt.Printf("%s %v\n", name, on) }
