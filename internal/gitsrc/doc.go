// Package gitsrc turns the revisions a user names into source trees perfgate can build, without
// touching the user's repository: it reads the repository with the git command's read-only
// plumbing (rev-parse, for-each-ref, cat-file, ls-tree, ls-files, merge-base), resolves a
// revision string to a commit, and writes that commit's tree, or the working tree with its
// uncommitted changes, into a fresh directory.
//
// git runs with explicit arguments and no shell, paths taken literally, replacement objects
// ignored, and with only the variables it needs to find itself and the user's configuration (see
// keepEnv): no token reaches it, and perfgate started from a git hook, whose GIT_DIR and
// GIT_INDEX_FILE name the hook's repository, reads the repository it was given. Revisions are
// parsed here, not by git, so that what is accepted and what each failure says do not depend on
// git's version.
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
