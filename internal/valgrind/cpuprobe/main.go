// Command cpuprobe prints the CPU features golang.org/x/sys/cpu sees, one "name true|false" line
// each, so that package valgrind can compare what code sees on the host with what it sees under
// valgrind (valgrind.Probe). "cpuprobe exec FEATURE" executes one instruction of the feature and
// prints "executed FEATURE": run under valgrind, it shows whether valgrind can decode that
// instruction on this host.
package main

import (
	"fmt"
	"os"
	"reflect"
	"strings"

	"golang.org/x/sys/cpu"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "exec" {
		if !execute(os.Args[2]) {
			fmt.Fprintf(os.Stderr, "cpuprobe: no instruction of %s to execute\n", os.Args[2])
			os.Exit(2)
		}
		fmt.Printf("executed %s\n", os.Args[2])
		return
	}
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
