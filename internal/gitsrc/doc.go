// Package gitsrc turns the revisions a user names into source trees perfgate can build, without
// touching the user's repository: it opens the repository read-only with go-git, resolves a
// revision string to a commit, and writes that commit's tree, or the working tree with its
// uncommitted changes, into a fresh directory.
//
// go-git is the one reader of repositories: no git command runs, so a checkout owned by another
// user (a container job's workspace, which git refuses as "dubious ownership") is read, no filter
// or hook the repository's configuration names runs, and nothing is fetched. Revisions are parsed
// here (full and abbreviated SHAs, branches, tags peeled, ~ and ^), so what is accepted and what
// each failure says do not depend on a git version. Open reads the configuration first and refuses
// what go-git cannot read with the fix: a partial clone (a promisor remote), SHA-256 objects,
// reftable references, any other repository extension. Uncommitted compares the work tree with the
// index's stat data (size, modification time, inode) and hashes only the files whose stat differs.
//
// Data flows one way:
//
//	Open(path) ─ Repo ─ Resolve("main~1") / DefaultBase() ─ *Commit
//	    ─ Export / ExportTemp ─ directory on disk
//	Repo ─ ExportWorktree / ExportWorktreeTemp
//	    (tracked + untracked-not-ignored files, Dirty flag)
//	Repo ─ Uncommitted (the paths that differ from HEAD, for the uncommitted-edits note)
//	Tree.Module(dir) ─ the directory of the go.mod governing dir in that tree
//	    (each side finds its own module)
//
// Exported trees hold regular files, executable bits and symbolic links; a submodule (gitlink)
// entry is an error, since its contents are not in the repository. Nothing is written to the user's
// work tree, index or object store.
//
// Failures callers branch on are typed: ErrNotRepository, *UnknownRevisionError (with close branch
// and tag names as suggestions), *ShallowError (a commit the request needs lies beyond a shallow
// clone's boundary, with the fix), *UnsupportedRepositoryError (what go-git cannot read, with the
// fix), *SubmoduleError and *NoModuleError (no go.mod governs a directory of the tree).
package gitsrc
