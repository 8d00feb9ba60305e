// Package fetch downloads the benchmarks and knowledge graphs researchers
// use into a data directory laid out as the guides expect (data/ by
// default): resumably (an interrupted download goes on from where it
// stopped, by an HTTP Range request), checking each file against a sha256
// pin, from the file's canonical public source or from a mirror (a URL or
// a directory laid out like the data directory).
//
// Where the exact upstream bytes were at hand when the catalogue was
// written, the pin is in the catalogue. Elsewhere the first download
// records its hash in checksums.lock in the data directory, and every
// later download of that file must match it (trust on first use).
package fetch

import (
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// LockFile is the name, inside the data directory, of the file that holds
// the hashes first downloads recorded.
const LockFile = "checksums.lock"

// partSuffix marks a download in progress; its bytes are kept so that the
// next run resumes it.
const partSuffix = ".part"

// ErrChecksum says that a file's bytes do not match its pin or its
// recorded hash.
var ErrChecksum = errors.New("checksum mismatch")

// Progress hears of a download's bytes: Start before the first byte (done
// is what an earlier run left, total -1 when unknown), Add per chunk, and
// Finish when the file is complete.
type Progress interface {
	Start(path string, done, total int64)
	Add(n int64)
	Finish()
}

// Fetcher downloads catalogue files into a data directory.
type Fetcher struct {
	// Dir is the data directory.
	Dir string
	// From, when set, is a mirror: an http(s) URL or a directory, laid
	// out like the data directory, read instead of each file's source.
	From string
	// Client does the HTTP requests (http.DefaultClient when nil).
	Client *http.Client
	// Progress, when set, hears of every download's bytes.
	Progress Progress
	// Log receives one line per file: where it comes from, and whether it
	// was already present.
	Log io.Writer
}

// Result is what Get did with one file.
type Result struct {
	// Path is the file's path inside the data directory.
	Path string
	// SHA256 is the hash of its bytes.
	SHA256 string
	// Fetched is false when the file was already present and matched.
	Fetched bool
	// Recorded is true when this download recorded the hash in the lock
	// file (the first download of a file with no pin).
	Recorded bool
}

// Get downloads every file of d that is missing, and checks every file of
// d against its pin or recorded hash.
func (f *Fetcher) Get(ctx context.Context, d Dataset) ([]Result, error) {
	var out []Result
	for _, file := range d.Files {
		rs, err := f.getFile(ctx, file)
		out = append(out, rs...)
		if err != nil {
			return out, fmt.Errorf("fetch: %s: %w", d.Name, err)
		}
	}
	return out, nil
}

// getFile fetches one catalogue file: from a mirror, an archive's members
// are read as the plain files they become; from the source, the archive is
// downloaded and its members extracted.
func (f *Fetcher) getFile(ctx context.Context, file File) ([]Result, error) {
	if len(file.Extract) > 0 {
		if f.From != "" {
			var out []Result
			for _, m := range file.Extract {
				r, err := f.getOne(ctx, m.Path, "", m.SHA256)
				if err != nil {
					return out, err
				}
				out = append(out, r)
			}
			return out, nil
		}
		r, err := f.getOne(ctx, file.Path, file.URL, file.SHA256)
		if err != nil {
			return nil, err
		}
		members, err := f.extract(file)
		return append([]Result{r}, members...), err
	}
	r, err := f.getOne(ctx, file.Path, file.URL, file.SHA256)
	if err != nil {
		return nil, err
	}
	return []Result{r}, nil
}

// getOne makes sure the data directory holds rel with the right bytes,
// downloading (or resuming) it from source, or from the mirror when one is
// set.
func (f *Fetcher) getOne(ctx context.Context, rel, source, pin string) (Result, error) {
	dest := filepath.Join(f.Dir, filepath.FromSlash(rel))
	want, recorded, err := f.expected(rel, pin)
	if err != nil {
		return Result{}, err
	}
	if _, err := os.Stat(dest); err == nil {
		sum, err := hashFile(dest)
		if err != nil {
			return Result{}, err
		}
		if want != "" && sum != want {
			return Result{}, fmt.Errorf("%s: %w: have %s, want %s (%s); delete the file to fetch it again",
				rel, ErrChecksum, sum, want, pinSource(recorded))
		}
		f.logf("%s: already present, sha256 %s\n", rel, sum)
		r := Result{Path: rel, SHA256: sum}
		if want == "" {
			r.Recorded = true
			return r, f.record(rel, sum)
		}
		return r, nil
	}
	from, err := f.location(rel, source)
	if err != nil {
		return Result{}, err
	}
	f.logf("%s: from %s\n", rel, from)
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return Result{}, fmt.Errorf("%s: %w", rel, err)
	}
	part := dest + partSuffix
	if err := f.download(ctx, from, part); err != nil {
		return Result{}, fmt.Errorf("%s: %w", rel, err)
	}
	sum, err := hashFile(part)
	if err != nil {
		return Result{}, err
	}
	if want != "" && sum != want {
		// A wrong file cannot be resumed into a right one.
		_ = os.Remove(part)
		return Result{}, fmt.Errorf("%s from %s: %w: got %s, want %s (%s)", rel, from, ErrChecksum, sum, want, pinSource(recorded))
	}
	if err := os.Rename(part, dest); err != nil {
		return Result{}, fmt.Errorf("%s: %w", rel, err)
	}
	r := Result{Path: rel, SHA256: sum, Fetched: true}
	if want == "" {
		r.Recorded = true
		return r, f.record(rel, sum)
	}
	return r, nil
}

func pinSource(recorded bool) string {
	if recorded {
		return "recorded in " + LockFile + " by the first download"
	}
	return "the catalogue's pin"
}

// location is where rel is read from: the mirror's copy, else the source.
func (f *Fetcher) location(rel, source string) (string, error) {
	if f.From == "" {
		if source == "" {
			return "", fmt.Errorf("%s: no source", rel)
		}
		return source, nil
	}
	if isURL(f.From) {
		u, err := url.Parse(f.From)
		if err != nil {
			return "", fmt.Errorf("mirror %s: %w", f.From, err)
		}
		return u.JoinPath(rel).String(), nil
	}
	return filepath.Join(f.From, filepath.FromSlash(rel)), nil
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// download appends to part whatever of from it does not hold yet.
func (f *Fetcher) download(ctx context.Context, from, part string) error {
	out, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	have, err := out.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	body, total, offset, err := f.open(ctx, from, have)
	if err != nil {
		return err
	}
	defer body.Close()
	if offset != have {
		// The source sent the whole file: start again.
		if err := out.Truncate(0); err != nil {
			return err
		}
		if _, err := out.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
	if f.Progress != nil {
		f.Progress.Start(part, offset, total)
		defer f.Progress.Finish()
	}
	w := io.Writer(out)
	if f.Progress != nil {
		w = progressWriter{out, f.Progress}
	}
	if _, err := io.Copy(w, body); err != nil {
		return fmt.Errorf("interrupted (run the same command again to resume): %w", err)
	}
	if err := out.Sync(); err != nil {
		return err
	}
	if total >= 0 {
		if fi, err := out.Stat(); err == nil && fi.Size() != total {
			return fmt.Errorf("got %d of %d bytes (run the same command again to resume)", fi.Size(), total)
		}
	}
	return out.Close()
}

type progressWriter struct {
	w io.Writer
	p Progress
}

func (pw progressWriter) Write(b []byte) (int, error) {
	n, err := pw.w.Write(b)
	pw.p.Add(int64(n))
	return n, err
}

// open reads from at offset have: it returns the body, the whole file's
// size (-1 when unknown) and the offset the body starts at (have, or 0
// when the source ignored the range).
func (f *Fetcher) open(ctx context.Context, from string, have int64) (io.ReadCloser, int64, int64, error) {
	if !isURL(from) {
		in, err := os.Open(from)
		if err != nil {
			return nil, 0, 0, err
		}
		fi, err := in.Stat()
		if err != nil {
			in.Close()
			return nil, 0, 0, err
		}
		if have > fi.Size() {
			have = 0
		}
		if _, err := in.Seek(have, io.SeekStart); err != nil {
			in.Close()
			return nil, 0, 0, err
		}
		return in, fi.Size(), have, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, from, nil)
	if err != nil {
		return nil, 0, 0, err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, 0, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return resp.Body, resp.ContentLength, 0, nil
	case http.StatusPartialContent:
		total := int64(-1)
		if _, size, ok := strings.Cut(resp.Header.Get("Content-Range"), "/"); ok {
			if n, err := strconv.ParseInt(size, 10, 64); err == nil {
				total = n
			}
		}
		return resp.Body, total, have, nil
	case http.StatusRequestedRangeNotSatisfiable:
		// What we hold is at least the whole file; the checksum decides.
		resp.Body.Close()
		return io.NopCloser(strings.NewReader("")), -1, have, nil
	default:
		resp.Body.Close()
		return nil, 0, 0, fmt.Errorf("GET %s: %s", from, resp.Status)
	}
}

// extract writes each member of file's downloaded archive to its path and
// checks it against its pin or recorded hash.
func (f *Fetcher) extract(file File) ([]Result, error) {
	zr, err := zip.OpenReader(filepath.Join(f.Dir, filepath.FromSlash(file.Path)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file.Path, err)
	}
	defer zr.Close()
	var out []Result
	for _, m := range file.Extract {
		i := slices.IndexFunc(zr.File, func(z *zip.File) bool { return z.Name == m.Name })
		if i < 0 {
			return out, fmt.Errorf("%s: no member %s", file.Path, m.Name)
		}
		r, err := f.extractOne(zr.File[i], m)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (f *Fetcher) extractOne(z *zip.File, m Member) (Result, error) {
	want, recorded, err := f.expected(m.Path, m.SHA256)
	if err != nil {
		return Result{}, err
	}
	dest := filepath.Join(f.Dir, filepath.FromSlash(m.Path))
	in, err := z.Open()
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", m.Name, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return Result{}, err
	}
	tmp := dest + partSuffix
	out, err := os.Create(tmp)
	if err != nil {
		return Result{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(out, h), in); err != nil {
		out.Close()
		return Result{}, fmt.Errorf("%s: %w", m.Name, err)
	}
	if err := out.Close(); err != nil {
		return Result{}, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if want != "" && sum != want {
		_ = os.Remove(tmp)
		return Result{}, fmt.Errorf("%s: %w: got %s, want %s (%s)", m.Path, ErrChecksum, sum, want, pinSource(recorded))
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Result{}, err
	}
	f.logf("%s: extracted, sha256 %s\n", m.Path, sum)
	r := Result{Path: m.Path, SHA256: sum, Fetched: true}
	if want == "" {
		r.Recorded = true
		return r, f.record(m.Path, sum)
	}
	return r, nil
}

// expected returns the hash rel must have: its pin, else the hash the
// lock file recorded (recorded true), else "".
func (f *Fetcher) expected(rel, pin string) (string, bool, error) {
	if pin != "" {
		return pin, false, nil
	}
	lock, err := ReadLock(f.Dir)
	if err != nil {
		return "", false, err
	}
	sum, ok := lock[rel]
	return sum, ok, nil
}

// record adds rel's hash to the lock file.
func (f *Fetcher) record(rel, sum string) error {
	lock, err := ReadLock(f.Dir)
	if err != nil {
		return err
	}
	if lock[rel] == sum {
		return nil
	}
	lock[rel] = sum
	return writeLock(f.Dir, lock)
}

// ReadLock reads the lock file of the data directory dir: file path to
// sha256. A missing file is an empty lock.
func ReadLock(dir string) (map[string]string, error) {
	lock := map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if errors.Is(err, os.ErrNotExist) {
		return lock, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fetch: read %s: %w", LockFile, err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, path, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != sha256.Size*2 {
			return nil, fmt.Errorf("fetch: %s line %d: want \"SHA256  PATH\", got %q", LockFile, n, line)
		}
		lock[path] = sum
	}
	return lock, nil
}

// writeLock writes the lock in sha256sum's format, sorted by path, so that
// `sha256sum -c checksums.lock` in the data directory checks it.
func writeLock(dir string, lock map[string]string) error {
	paths := make([]string, 0, len(lock))
	for p := range lock {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var b strings.Builder
	b.WriteString("# sha256 of each file as first downloaded; later downloads must match (parog data get)\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "%s  %s\n", lock[p], p)
	}
	tmp := filepath.Join(dir, LockFile+partSuffix)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("fetch: write %s: %w", LockFile, err)
	}
	return os.Rename(tmp, filepath.Join(dir, LockFile))
}

func hashFile(path string) (string, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return "", fmt.Errorf("fetch: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (f *Fetcher) logf(format string, a ...any) {
	if f.Log != nil {
		fmt.Fprintf(f.Log, format, a...)
	}
}
