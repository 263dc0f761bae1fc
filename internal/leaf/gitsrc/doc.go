// Package gitsrc turns the revisions a user names into source trees perfgate can build, without
// touching the user's repository: it opens the repository read-only with go-git, resolves a
// revision string to a commit, and writes that commit's tree, or the working tree with its
// uncommitted changes, into a fresh directory.
//
// Data flows one way:
//
//	Open(path) ─ Repo ─ Resolve("main~1") / DefaultBase() ─ *Commit
//	    ─ Export / ExportTemp ─ directory on disk
//	Repo ─ ExportWorktree / ExportWorktreeTemp
//	    (tracked + untracked-not-ignored files, Dirty flag)
//	Tree.Module(dir) ─ the directory of the go.mod governing dir in that tree
//	    (each side finds its own module)
//
// Exported trees hold regular files, executable bits and symbolic links; a submodule (gitlink)
// entry is an error, since its contents are not in the repository. Nothing is written to the user's
// work tree, index or object store.
//
// Failures callers branch on are typed: ErrNotRepository, *UnknownRevisionError (with close branch
// and tag names as suggestions), *ShallowError (a commit the request needs lies beyond a shallow
// clone's boundary, with the fix), *SubmoduleError and *NoModuleError (no go.mod governs a
// directory of the tree).
package gitsrc
