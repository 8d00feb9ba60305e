package fbimport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/klauspost/compress/gzip"
)

// createFunc creates a file for writing; tests swap it to reach a full disk.
type createFunc func(name string) (*os.File, error)

// writeAtomically writes out through fn (gzip-compressed when out ends in
// .gz) into a temporary file renamed over out only when complete, so a
// failure never leaves a half-written file under out's name.
func writeAtomically(out string, fn func(io.Writer) error) error {
	return writeAtomicallyWith(os.Create, out, gzip.DefaultCompression, fn)
}

func writeAtomicallyWith(create createFunc, out string, level int, fn func(io.Writer) error) (err error) {
	tmp := out + ".tmp"
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("fbimport: %w", diskHint(err))
	}
	f, err := create(tmp)
	if err != nil {
		return fmt.Errorf("fbimport: create %s: %w", out, diskHint(err))
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(out, ".gz") {
		if zw, err = gzip.NewWriterLevel(f, level); err != nil {
			return fmt.Errorf("fbimport: %w", err)
		}
		w = zw
	}
	if err = fn(w); err != nil {
		return wrapWrite(out, err)
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return wrapWrite(out, err)
		}
	}
	if err = f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return wrapWrite(out, err)
	}
	if err = f.Close(); err != nil {
		return wrapWrite(out, err)
	}
	if err = os.Rename(tmp, out); err != nil {
		return fmt.Errorf("fbimport: %w", err)
	}
	return nil
}

// ErrDiskFull is wrapped by a write that failed for lack of space.
var ErrDiskFull = errors.New("disk full")

func wrapWrite(out string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) || errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("fbimport: write %s: %w", out, diskHint(err))
	}
	return err
}

// diskHint names the fix for a full disk.
func diskHint(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w (%v): free space on the output disk or choose another --out, then run the same command again", ErrDiskFull, err)
	}
	return err
}
