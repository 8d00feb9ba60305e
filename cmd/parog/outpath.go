package main

import (
	"fmt"
	"io/fs"
	"os"
)

// checkOut refuses an output path that exists and is not what the command
// writes (a regular file, or a directory when dir is set), or that is a
// symbolic link: the command would replace a device node or a link with a
// file of its own. --force (force) lets it go on.
func checkOut(flag, path string, dir, force bool) error {
	if force {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil // absent (or unreadable: creating it will say why)
	}
	want, ok := "a regular file", fi.Mode().IsRegular()
	if dir {
		want, ok = "a directory", fi.IsDir()
	}
	if ok {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		to, _ := os.Readlink(path)
		return usageError("%s %s is a symbolic link (to %s), not %s: give the path it points to, or pass --force to replace the link", flag, path, to, want)
	}
	return usageError("%s %s is %s, not %s: refusing to replace it (pass --force to write anyway)", flag, path, kindOf(fi.Mode()), want)
}

// kindOf names what a file mode says a path is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return fmt.Sprintf("not a regular file (mode %v)", m)
}
