package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// writeOut is the one way a command writes an output file: the path is
// checked as checkOut does (flag names it in the refusal), then written
// through write into a temporary file beside it, which is renamed over it
// once complete. Nothing is ever opened at path itself, so no write goes
// through a symbolic link, no open() blocks on a named pipe or touches a
// device (--force replaces such a node with a file), and a command stopped
// halfway leaves the old file as it was.
func writeOut(flag, path string, force bool, write func(io.Writer) error) (err error) {
	if err := checkOut(flag, path, false, force); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}

// writeOutBytes writes data to path through writeOut.
func writeOutBytes(flag, path string, force bool, data []byte) error {
	return writeOut(flag, path, force, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
