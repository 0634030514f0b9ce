package planner

import (
	"os"
	"path/filepath"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/logical"
)

// CheckFiles refuses a job whose outputs land on one of its inputs, or
// whose outputs share a file (diag.FileConflict). A filesystem sink opens
// its file for writing (truncating it) when the job starts, so a sink on a
// file the job reads empties the input before a row of it is read: the job
// used to exit 0 having read and written nothing. The files a job writes are
// the 'path' of each filesystem table it inserts into and the
// 'scan.late-rows.path' of each table it reads; the files it reads are the
// 'path' of each filesystem table it reads. Paths are compared as the
// runtime opens them: taken from baseDir (the job file's directory) when
// relative, file: URIs turned into paths, cleaned; then symbolic links are
// followed as far as the path exists, and files that exist are also compared
// by identity (a hard link). EXPLAIN statements neither read nor write.
//
// Each error is at the option naming the output (the sink's 'path', or
// 'scan.late-rows.path'), with a note at the input or the other output.
// Two INSERTs into one filesystem table are refused too, at the second:
// each opens the file for itself.
func CheckFiles(plans []*Plan, baseDir string, l *diag.List) {
	var ins, outs []*fileUse
	seen := map[fileKey]bool{}
	add := func(list *[]*fileUse, t *catalog.Table, key, what string) {
		if t == nil || t.Invalid || t.Config == nil || t.Config.Spec == nil || seen[fileKey{t, key}] {
			return
		}
		o := t.Config.Option(key)
		if o == nil {
			return
		}
		seen[fileKey{t, key}] = true
		p, err := connectors.ResolvePath(o.Value.Value, baseDir)
		if err != nil {
			return // reported by the option's validation
		}
		u := &fileUse{table: t, opt: o, what: what, path: followLinks(p)}
		if fi, err := os.Stat(u.path); err == nil {
			u.info = fi
		}
		*list = append(*list, u)
	}
	firstInsert := map[*catalog.Table]*Plan{}
	for _, p := range plans {
		if p.Explain != nil || p.Root == nil {
			continue
		}
		if s, ok := p.Root.(*logical.Sink); ok && s.Table.Connector() == "filesystem" {
			add(&outs, s.Table, "path", "sink "+s.Table.Name+" writes")
			// Each INSERT opens (and truncates) the file for itself.
			if first := firstInsert[s.Table]; first != nil && !s.Table.Invalid {
				l.Errorf(diag.FileConflict, p.Stmt.Span(),
					"a second INSERT INTO %s: each INSERT into a filesystem table writes its file from the start, so one would overwrite the other's rows", s.Table.Name).
					WithNote(first.Stmt.Span(), "the first INSERT INTO %s", s.Table.Name).
					WithHint("write one INSERT INTO %s SELECT ... UNION ALL SELECT ...", s.Table.Name)
			} else {
				firstInsert[s.Table] = p
			}
		}
		contractScans(p.Root, func(sc *logical.Scan) {
			if sc.Table.Connector() == "filesystem" {
				add(&ins, sc.Table, "path", "")
			}
			add(&outs, sc.Table, "scan.late-rows.path", "the late rows of "+sc.Table.Name+" go to")
		})
	}
	for i, o := range outs {
		if in := o.firstSame(ins); in != nil {
			l.Errorf(diag.FileConflict, o.opt.Value.Span(),
				"%s %s, which table %s reads: it would be emptied before it is read", o.what, o.opt.Value.Value, in.table.Name).
				WithNote(in.opt.Value.Span(), "table %s reads it as %s", in.table.Name, in.opt.Value.Value).
				WithHint("write to another file; to replace a file with a job's output, write a new file and rename it after the job")
			continue
		}
		if prev := o.firstSame(outs[:i]); prev != nil {
			l.Errorf(diag.FileConflict, o.opt.Value.Span(),
				"%s %s, the file %s: one would overwrite the other", o.what, o.opt.Value.Value, prev.what).
				WithNote(prev.opt.Value.Span(), "%s %s", prev.what, prev.opt.Value.Value).
				WithHint("give each output a file of its own")
		}
	}
}

type fileKey struct {
	t   *catalog.Table
	key string
}

// fileUse is one file a job reads or writes.
type fileUse struct {
	table *catalog.Table
	opt   *ast.Option
	what  string // of an output: "sink s writes", "the late rows of t go to"
	path  string // absolute, cleaned, links followed as far as it exists
	info  os.FileInfo
}

// firstSame returns the first of list that is u's file, or nil. Two
// options of one table name two files even when they are the same (a
// table's late rows may not go to its own 'path' either).
func (u *fileUse) firstSame(list []*fileUse) *fileUse {
	for _, o := range list {
		if u.path == o.path || u.info != nil && o.info != nil && os.SameFile(u.info, o.info) {
			return o
		}
	}
	return nil
}

// followLinks resolves the symbolic links of an absolute path: of the
// whole path when it exists, else of its longest existing directory, with
// the rest appended.
func followLinks(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, rest := filepath.Dir(p), filepath.Base(p)
	for dir != filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = filepath.Dir(dir)
	}
	return p
}
