package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/gobuild"
)

// locate finds the gated package and the module that contains it on each side.
//
// A relative package ("./crypto/xtea", "..", ".") is a directory relative to cfg.Dir, anywhere in
// the repository, as the go command reads it. Each side finds the go.mod nearest above that
// directory in its own tree, so a package of a monorepo's nested module, or one whose go.mod moved
// between base and head, builds in the module it belongs to; the go command then runs in that
// module's root, with the tree's go.work (see gobuild.Build) and the module's replace directives,
// which may point anywhere inside the tree. An import path is resolved by the go command in the
// module that contains cfg.Dir, or in cfg.Dir itself when only a go.work governs it.
//
// A package directory on neither side is a configuration error. A package in no module is an error
// when base is in none (base cannot be built) and fails the gate when only head is.
func (p *pipeline) locate() (headErr, err error) {
	pkg := p.cfg.Package
	if strings.Contains(pkg, "...") {
		return nil, &config.Error{Key: "package", Value: pkg,
			Want: "one package, not a pattern with ..., such as ./cipher/des"}
	}
	relative := isRelative(pkg)
	dir := p.rel
	if relative {
		dir = path.Join(p.rel, filepath.ToSlash(pkg))
		if dir == ".." || strings.HasPrefix(dir, "../") {
			return nil, &config.Error{Key: "package", Value: pkg,
				Want: "a package directory inside the repository, relative to the directory perfgate runs in (-C)"}
		}
		if !p.dirOnEitherSide(dir) {
			return nil, &config.Error{Key: "package", Value: pkg,
				Want: fmt.Sprintf("a package directory that exists in base or head, relative to %s (the directory perfgate runs "+
					"in, -C), such as ./cipher/des", p.where())}
		}
	}
	var errs [2]error
	for i, s := range []*side{&p.base, &p.head} {
		mod, err := s.tree.Module(dir)
		if err != nil && !relative {
			// An import path from a directory that only a go.work governs: the go command resolves
			// it there.
			if d := filepath.Join(s.tree.Dir, filepath.FromSlash(dir)); workspaceAbove(d, s.tree.Dir) {
				mod, err = d, nil
			}
		}
		if err != nil {
			errs[i] = err
			continue
		}
		s.modDir, s.pkg, s.pkgDir = mod, pkg, filepath.Join(s.tree.Dir, filepath.FromSlash(dir))
		if relative {
			r, err := filepath.Rel(mod, s.pkgDir)
			if err != nil {
				return nil, err
			}
			s.pkg = "./" + filepath.ToSlash(r)
			if r == "." {
				s.pkg = "."
			}
		}
		if modRel, err := filepath.Rel(s.tree.Dir, mod); err == nil && (modRel != "." || dir != ".") {
			what := "module"
			if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
				what = "workspace"
			}
			p.logf("%s: package %s in the %s at %s/", s.name, s.pkg, what, filepath.ToSlash(modRel))
		}
	}
	var nm *gitsrc.NoModuleError
	switch {
	case errs[0] != nil && errs[1] != nil:
		if errors.As(errs[0], &nm) && errors.As(errs[1], &nm) {
			return nil, &NoModuleError{Package: pkg, Dir: dir}
		}
		return nil, fmt.Errorf("base: %w", errs[0])
	case errs[0] != nil:
		return nil, fmt.Errorf("base: %w", errs[0])
	}
	return errs[1], nil
}

// workspaceAbove reports whether a go.work file is in dir or a parent of it up to root.
func workspaceAbove(dir, root string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "go.work")); err == nil && st.Mode().IsRegular() {
			return true
		}
		if d == root || filepath.Dir(d) == d {
			return false
		}
	}
}

// dirOnEitherSide reports whether the slash-separated directory dir exists in base's tree or
// head's.
func (p *pipeline) dirOnEitherSide(dir string) bool {
	for _, s := range []*side{&p.base, &p.head} {
		if st, err := os.Stat(filepath.Join(s.tree.Dir, filepath.FromSlash(dir))); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// where names cfg.Dir for messages: "the repository root" or its path inside the repository.
func (p *pipeline) where() string {
	if p.rel == "." {
		return "the repository root"
	}
	return p.rel + "/"
}

// isRelative reports whether pkg is a directory path rather than an import path, by the go
// command's rule: it is ".", "..", or starts with "./" or "../".
func isRelative(pkg string) bool {
	pkg = filepath.ToSlash(pkg)
	return pkg == "." || pkg == ".." || strings.HasPrefix(pkg, "./") || strings.HasPrefix(pkg, "../")
}

// NoModuleError is a gated package that no go.mod governs on either side: the repository has no
// go.mod, or none in the package's directory or above it. perfgate compares Go modules, so the
// comparison cannot run (exit 3).
type NoModuleError struct {
	Package string // as given, e.g. "./crypto/xtea"
	Dir     string // its directory relative to the repository root, slash-separated
}

func (e *NoModuleError) Error() string {
	where := e.Dir
	if where == "." {
		where = "the repository root"
	}
	return fmt.Sprintf("package %s is in no Go module in base or head: no go.mod in %s or any parent up to the "+
		"repository root "+
		"(perfgate compares a package of a Go module: add a go.mod, or point -pkg at a package inside one)", e.Package, where)
}

// notOnBase is the error of a package that go list did not find on base: it names what was looked
// for where, and says whether head has the package (a package only head has cannot be compared:
// base has nothing to time).
func (p *pipeline) notOnBase(ctx context.Context, base *gobuild.NotFoundError) error {
	where := fmt.Sprintf("looked for %s in base's module %s", base.Pkg, p.moduleName(&p.base))
	if _, err := gobuild.Inspect(ctx, p.buildConfig(&p.head)); err == nil {
		return fmt.Errorf("package %s exists on head only, so there is nothing to compare it with: %s (%s)",
			p.cfg.Package, base.Problem, where)
	} else if head := (*gobuild.NotFoundError)(nil); errors.As(err, &head) {
		return &config.Error{Key: "package", Value: p.cfg.Package, Want: fmt.Sprintf(
			"a package of the repository; neither side has it: base: %s; head: %s (%s, and in head's %s)",
			base.Problem, head.Problem, where, p.moduleName(&p.head))}
	}
	return fmt.Errorf("base: %w (%s)", base, where)
}

// moduleName is the module path of s's go.mod, or its directory in the tree when it cannot be read.
func (p *pipeline) moduleName(s *side) string {
	rel, err := filepath.Rel(s.tree.Dir, s.modDir)
	if err != nil {
		rel = s.modDir
	}
	data, err := os.ReadFile(filepath.Join(s.modDir, "go.mod"))
	if err != nil {
		return "at ./" + filepath.ToSlash(rel)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) + " (./" + filepath.ToSlash(filepath.Join(rel, "go.mod")) + ")"
		}
	}
	return "at ./" + filepath.ToSlash(rel)
}
