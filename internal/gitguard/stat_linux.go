package gitguard

import (
	"os"
	"syscall"
)

// statMatches reports whether host git takes the file p for unchanged
// since its index entry's stat data st was recorded, without reading it:
// git compares the type, mtime and ctime (seconds, as it is built by
// default), inode, owner, group and size (its low 32 bits).
func statMatches(p string, st entryStat) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	ctime, mtime := s.Ctim, s.Mtim
	return s.Mode&syscall.S_IFMT == st[6]&syscall.S_IFMT && uint32(ctime.Sec) == st[0] && uint32(mtime.Sec) == st[2] && uint32(s.Ino) == st[5] &&
		s.Uid == st[7] && s.Gid == st[8] && uint32(s.Size) == st[9]
}

// links is how many names the file fi has.
func links(fi os.FileInfo) uint64 {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}
