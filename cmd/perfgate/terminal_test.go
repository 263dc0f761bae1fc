package main

import (
	"os"
	"testing"
)

func TestUTF8Locale(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LANG": "de_DE.utf8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{}, false},
		{map[string]string{"LC_ALL": "C", "LANG": "en_US.UTF-8"}, false},      // LC_ALL wins
		{map[string]string{"LC_CTYPE": "C.UTF-8", "LANG": "POSIX"}, true},     // then LC_CTYPE
		{map[string]string{"LC_ALL": "", "LC_CTYPE": "", "LANG": "C"}, false}, // empty means unset
	} {
		if got := utf8Locale(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("utf8Locale(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestUnicodeOnlyOnATerminal(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if unicodeOK(f) {
		t.Error("a regular file is not a terminal: the forest must be ASCII there")
	}
}
