package shared

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/objstorage/remote"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// fakeS3 is an in-process S3 server.
type fakeS3 struct {
	backend *s3mem.Backend
	server  *httptest.Server
	parts   atomic.Int64 // multipart upload parts received
}

// newFakeS3 starts a fake S3 server holding the named buckets.
func newFakeS3(t *testing.T, buckets ...string) *fakeS3 {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		if err := backend.CreateBucket(b); err != nil {
			t.Fatalf("create bucket %s: %v", b, err)
		}
	}
	f := &fakeS3{backend: backend}
	handler := gofakes3.New(backend).Server()
	f.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Query().Has("partNumber") {
			f.parts.Add(1)
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(f.server.Close)
	return f
}

// host returns the server's host:port.
func (f *fakeS3) host() string {
	return strings.TrimPrefix(f.server.URL, "http://")
}

// url returns an s3 URL for bucketAndPrefix on the fake server.
func (f *fakeS3) url(bucketAndPrefix string) string {
	return "s3://" + bucketAndPrefix + "?endpoint=" + f.host() +
		"&secure=false&region=us-east-1&access_key=test&secret_key=test"
}

// rawClient returns a minio client of the fake server, to look at keys.
func (f *fakeS3) rawClient(t *testing.T) *minio.Client {
	t.Helper()
	c, err := minio.New(f.host(), &minio.Options{
		Creds:  credentials.NewStaticV4("test", "test", ""),
		Region: "us-east-1",
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// backendCase opens a fresh, empty store of one backend.
type backendCase struct {
	name string
	open func(t *testing.T) remote.Storage
}

func backends() []backendCase {
	return []backendCase{
		{"file", func(t *testing.T) remote.Storage {
			st, err := Open("file://" + filepath.Join(t.TempDir(), "ckpt"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
		{"s3", func(t *testing.T) remote.Storage {
			f := newFakeS3(t, "bucket")
			st, err := Open(f.url("bucket/cluster-1/checkpoints"))
			if err != nil {
				t.Fatal(err)
			}
			// Upload in the smallest parts S3 allows, so that the large
			// object below takes several parts.
			st.(*s3Store).partSize = 5 << 20
			t.Cleanup(func() { st.Close() })
			return st
		}},
	}
}

// put writes data as object name, in chunks of chunk bytes.
func put(t *testing.T, st remote.Storage, name string, data []byte, chunk int) {
	t.Helper()
	w, err := st.CreateObject(name)
	if err != nil {
		t.Fatalf("CreateObject(%q): %v", name, err)
	}
	for off := 0; off < len(data); off += chunk {
		n, err := w.Write(data[off:min(off+chunk, len(data))])
		if err != nil || n != min(chunk, len(data)-off) {
			t.Fatalf("Write(%q) at %d: n=%d err=%v", name, off, n, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close(%q): %v", name, err)
	}
}

// get reads all of object name.
func get(t *testing.T, st remote.Storage, name string) []byte {
	t.Helper()
	r, size, err := st.ReadObject(context.Background(), name)
	if err != nil {
		t.Fatalf("ReadObject(%q): %v", name, err)
	}
	defer r.Close()
	buf := make([]byte, size)
	if err := r.ReadAt(context.Background(), buf, 0); err != nil {
		t.Fatalf("ReadAt(%q, all): %v", name, err)
	}
	return buf
}

func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestConformance runs the same checks against every backend.
func TestConformance(t *testing.T) {
	ctx := context.Background()
	for _, bc := range backends() {
		t.Run(bc.name, func(t *testing.T) {
			t.Run("ReadBack", func(t *testing.T) {
				st := bc.open(t)
				data := []byte("hello, shared checkpoint storage")
				put(t, st, "obj", data, 5)
				r, size, err := st.ReadObject(ctx, "obj")
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if size != int64(len(data)) {
					t.Fatalf("size = %d, want %d", size, len(data))
				}
				for _, tc := range []struct {
					off, n  int
					wantErr bool
				}{
					{0, len(data), false},
					{0, 5, false},
					{7, 6, false},
					{len(data) - 1, 1, false},
					{len(data), 0, false},
					{len(data) - 3, 4, true}, // straddles the end
					{len(data), 1, true},     // starts at the end
					{len(data) + 10, 1, true},
					{-1, 1, true},
				} {
					buf := make([]byte, tc.n)
					err := r.ReadAt(ctx, buf, int64(tc.off))
					if tc.wantErr {
						if err == nil {
							t.Errorf("ReadAt(off=%d, n=%d): no error past the end", tc.off, tc.n)
						}
						continue
					}
					if err != nil {
						t.Errorf("ReadAt(off=%d, n=%d): %v", tc.off, tc.n, err)
					} else if !bytes.Equal(buf, data[tc.off:tc.off+tc.n]) {
						t.Errorf("ReadAt(off=%d, n=%d) = %q, want %q", tc.off, tc.n, buf, data[tc.off:tc.off+tc.n])
					}
				}
				if got, err := st.Size("obj"); err != nil || got != int64(len(data)) {
					t.Errorf("Size = %d, %v; want %d", got, err, len(data))
				}
			})

			t.Run("ParallelReads", func(t *testing.T) {
				st := bc.open(t)
				data := randomBytes(1, 64<<10)
				put(t, st, "obj", data, 4096)
				r, _, err := st.ReadObject(ctx, "obj")
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var wg sync.WaitGroup
				errs := make(chan error, 16)
				for i := range 16 {
					wg.Go(func() {
						off, n := i*4000, 1000+i*7
						buf := make([]byte, n)
						if err := r.ReadAt(ctx, buf, int64(off)); err != nil {
							errs <- err
						} else if !bytes.Equal(buf, data[off:off+n]) {
							errs <- fmt.Errorf("read %d at %d: wrong bytes", n, off)
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})

			t.Run("EmptyObject", func(t *testing.T) {
				st := bc.open(t)
				put(t, st, "empty", nil, 1)
				r, size, err := st.ReadObject(ctx, "empty")
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if size != 0 {
					t.Fatalf("size = %d, want 0", size)
				}
				if err := r.ReadAt(ctx, nil, 0); err != nil {
					t.Errorf("zero-length ReadAt: %v", err)
				}
				if err := r.ReadAt(ctx, make([]byte, 1), 0); err == nil {
					t.Error("ReadAt of 1 byte of an empty object: no error")
				}
			})

			t.Run("List", func(t *testing.T) {
				st := bc.open(t)
				for _, name := range []string{"a", "b.4", "b.5", "b.6", "ckpt-000001", "ckpt-000002"} {
					put(t, st, name, []byte(name), 100)
				}
				for _, tc := range []struct {
					prefix, delim string
					want          []string
				}{
					{"", "", []string{"a", "b.4", "b.5", "b.6", "ckpt-000001", "ckpt-000002"}},
					{"ckpt-", "", []string{"000001", "000002"}},
					{"b", "", []string{".4", ".5", ".6"}},
					{"", ".", []string{"a", "b", "ckpt-000001", "ckpt-000002"}},
					{"b", ".", []string{"4", "5", "6"}},
					{"", "-", []string{"a", "b.4", "b.5", "b.6", "ckpt"}},
					{"ckpt-000001", "", []string{""}},
					{"zzz", "", []string{}},
				} {
					got, err := st.List(tc.prefix, tc.delim)
					if err != nil {
						t.Fatalf("List(%q, %q): %v", tc.prefix, tc.delim, err)
					}
					slices.Sort(got)
					if !slices.Equal(got, tc.want) {
						t.Errorf("List(%q, %q) = %q, want %q", tc.prefix, tc.delim, got, tc.want)
					}
				}
			})

			t.Run("Delete", func(t *testing.T) {
				st := bc.open(t)
				put(t, st, "doomed", []byte("x"), 1)
				put(t, st, "kept", []byte("y"), 1)
				if err := st.Delete("doomed"); err != nil {
					t.Fatal(err)
				}
				_, _, err := st.ReadObject(ctx, "doomed")
				if err == nil || !st.IsNotExistError(err) {
					t.Errorf("ReadObject after Delete: err = %v, want a not-exist error", err)
				}
				if _, err := st.Size("doomed"); err == nil || !st.IsNotExistError(err) {
					t.Errorf("Size after Delete: err = %v, want a not-exist error", err)
				}
				if got, err := st.List("", ""); err != nil || !slices.Equal(got, []string{"kept"}) {
					t.Errorf("List after Delete = %q, %v; want [kept]", got, err)
				}
				if err := st.Delete("doomed"); err != nil {
					t.Errorf("Delete of a missing object: %v", err)
				}
				if string(get(t, st, "kept")) != "y" {
					t.Error("Delete disturbed another object")
				}
			})

			t.Run("IsNotExistError", func(t *testing.T) {
				st := bc.open(t)
				_, _, err := st.ReadObject(ctx, "never-written")
				if err == nil || !st.IsNotExistError(err) {
					t.Errorf("ReadObject of a missing object: err = %v, want a not-exist error", err)
				}
				if st.IsNotExistError(nil) {
					t.Error("IsNotExistError(nil) = true")
				}
				if st.IsNotExistError(io.ErrUnexpectedEOF) {
					t.Error("IsNotExistError(io.ErrUnexpectedEOF) = true")
				}
			})

			t.Run("Overwrite", func(t *testing.T) {
				st := bc.open(t)
				put(t, st, "obj", []byte("the first, longer version"), 4)
				put(t, st, "obj", []byte("second"), 4)
				if got := get(t, st, "obj"); string(got) != "second" {
					t.Errorf("after overwrite read %q, want %q", got, "second")
				}
				if size, err := st.Size("obj"); err != nil || size != 6 {
					t.Errorf("Size after overwrite = %d, %v; want 6", size, err)
				}
				if got, err := st.List("", ""); err != nil || !slices.Equal(got, []string{"obj"}) {
					t.Errorf("List after overwrite = %q, %v; want [obj]", got, err)
				}
			})

			t.Run("AppearsOnClose", func(t *testing.T) {
				st := bc.open(t)
				put(t, st, "obj", []byte("old"), 3)
				w, err := st.CreateObject("obj")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Write([]byte("new bytes")); err != nil {
					t.Fatal(err)
				}
				// Before Close the old object is intact and nothing else shows.
				if got := get(t, st, "obj"); string(got) != "old" {
					t.Errorf("before Close read %q, want %q", got, "old")
				}
				if got, err := st.List("", ""); err != nil || !slices.Equal(got, []string{"obj"}) {
					t.Errorf("List before Close = %q, %v; want [obj]", got, err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if got := get(t, st, "obj"); string(got) != "new bytes" {
					t.Errorf("after Close read %q, want %q", got, "new bytes")
				}
				if _, err := w.Write([]byte("late")); err == nil {
					t.Error("Write after Close: no error")
				}
				if err := w.Close(); err != nil {
					t.Errorf("second Close: %v", err)
				}
			})

			t.Run("LargeObject", func(t *testing.T) {
				st := bc.open(t)
				data := randomBytes(2, 12<<20+12345)
				put(t, st, "big", data, 1000003)
				if size, err := st.Size("big"); err != nil || size != int64(len(data)) {
					t.Fatalf("Size = %d, %v; want %d", size, err, len(data))
				}
				if !bytes.Equal(get(t, st, "big"), data) {
					t.Fatal("large object read back differs")
				}
				r, _, err := st.ReadObject(ctx, "big")
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				for _, rng := range [][2]int{{5<<20 - 100, 200}, {10<<20 - 1, 2 << 20}, {len(data) - 7, 7}} {
					buf := make([]byte, rng[1])
					if err := r.ReadAt(ctx, buf, int64(rng[0])); err != nil {
						t.Fatalf("ReadAt(%d, %d): %v", rng[0], rng[1], err)
					}
					if !bytes.Equal(buf, data[rng[0]:rng[0]+rng[1]]) {
						t.Errorf("ReadAt(%d, %d): wrong bytes", rng[0], rng[1])
					}
				}
				if err := r.ReadAt(ctx, make([]byte, 8), int64(len(data)-7)); err == nil {
					t.Error("ReadAt past the end of the large object: no error")
				}
			})
		})
	}
}

func TestOpenErrors(t *testing.T) {
	f := newFakeS3(t, "bucket")
	notDir := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An address nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close()
	defer func(d time.Duration) { openTimeout = d }(openTimeout)
	openTimeout = time.Second

	for _, tc := range []struct {
		name, url string
		want      []string // substrings of the error
	}{
		{"empty", "", []string{"no scheme", "file:///path", "s3://bucket"}},
		{"bare path", "/var/ckpt", []string{"no scheme", "file:///path"}},
		{"unknown scheme", "gs://bucket/x", []string{`unsupported scheme "gs"`, "file:///path", "s3://bucket"}},
		{"malformed", "s3://bucket/%zz", []string{"malformed", "s3://bucket"}},
		{"file host", "file://ckpt/dir", []string{`host "ckpt"`, "file:///path"}},
		{"file relative", "file:ckpt", []string{"absolute path", "file:///path"}},
		{"file query", "file:///tmp/x?sync=1", []string{"no query"}},
		{"file not a dir", "file://" + notDir, []string{"not a directory", notDir}},
		{"s3 no bucket", "s3:///prefix", []string{"no bucket", "s3://bucket"}},
		{"s3 bad bucket name", "s3://ab", []string{`invalid bucket name "ab"`}},
		{"s3 unknown param", "s3://bkt?endpoint=h:1&bogus=1", []string{`unknown query parameter "bogus"`}},
		{"s3 bad secure", "s3://bkt?secure=maybe", []string{`secure="maybe"`}},
		{"s3 endpoint scheme", "s3://bkt?endpoint=http://h:1", []string{"without a scheme"}},
		{"s3 half credentials", "s3://bkt?access_key=a", []string{"given together"}},
		{"s3 missing bucket", f.url("nope/x"), []string{`bucket "nope" does not exist`, "s3://nope/x"}},
		{"s3 unreachable", "s3://bucket?endpoint=" + deadAddr + "&secure=false&region=us-east-1", []string{"cannot check bucket", "reachable", deadAddr}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Open(tc.url)
			if err == nil {
				st.Close()
				t.Fatalf("Open(%q) succeeded", tc.url)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Open(%q) error %q lacks %q", tc.url, err, w)
				}
			}
		})
	}
}

func TestOpenRedactsSecret(t *testing.T) {
	for _, u := range []string{
		"s3://bkt?endpoint=h:1&secret_key=TOPSECRET&bogus=1",
		"s3://bkt/%zz?access_key=a&secret_key=TOPSECRET",
	} {
		_, err := Open(u)
		if err == nil {
			t.Fatalf("Open(%q) succeeded", u)
		}
		if strings.Contains(err.Error(), "TOPSECRET") {
			t.Errorf("Open(%q) error leaks the secret: %v", u, err)
		}
		if !strings.Contains(err.Error(), "secret_key=REDACTED") {
			t.Errorf("Open(%q) error %q does not show the redacted URL", u, err)
		}
	}
}

func TestParseS3URL(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "env-id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "env-secret")
	t.Setenv("AWS_SESSION_TOKEN", "env-token")
	for _, tc := range []struct {
		url  string
		want s3Config
	}{
		{"s3://bkt", s3Config{bucket: "bkt", endpoint: "s3.amazonaws.com", secure: true,
			accessKey: "env-id", secretKey: "env-secret", sessionToken: "env-token"}},
		{"s3://bkt/a/b/?region=eu-west-1", s3Config{bucket: "bkt", prefix: "a/b", endpoint: "s3.amazonaws.com",
			region: "eu-west-1", secure: true, accessKey: "env-id", secretKey: "env-secret", sessionToken: "env-token"}},
		{"s3://bkt/p?endpoint=10.0.0.1:9000&secure=false&access_key=k&secret_key=s", s3Config{bucket: "bkt", prefix: "p",
			endpoint: "10.0.0.1:9000", secure: false, accessKey: "k", secretKey: "s"}},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseS3URL(u)
		if err != nil {
			t.Fatalf("parseS3URL(%q): %v", tc.url, err)
		}
		if got != tc.want {
			t.Errorf("parseS3URL(%q) = %+v, want %+v", tc.url, got, tc.want)
		}
	}
}

// TestS3Prefix checks that objects live under the URL's prefix and that
// stores of different prefixes do not see each other's objects.
func TestS3Prefix(t *testing.T) {
	f := newFakeS3(t, "bucket")
	open := func(bucketAndPrefix string) remote.Storage {
		st, err := Open(f.url(bucketAndPrefix))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b, root := open("bucket/nodes/a"), open("bucket/nodes/b/"), open("bucket")
	put(t, a, "obj", []byte("from a"), 100)
	put(t, b, "obj", []byte("from b"), 100)

	info, err := f.rawClient(t).StatObject(context.Background(), "bucket", "nodes/a/obj", minio.StatObjectOptions{})
	if err != nil || info.Size != int64(len("from a")) {
		t.Fatalf("key nodes/a/obj: size %d, err %v", info.Size, err)
	}
	if got, err := root.List("", ""); err != nil || !slices.Equal(got, []string{"nodes/a/obj", "nodes/b/obj"}) {
		t.Errorf("root List = %q, %v", got, err)
	}
	if got, err := root.List("nodes", "/"); err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf(`root List("nodes", "/") = %q, %v; want [a b]`, got, err)
	}
	if got, err := a.List("", ""); err != nil || !slices.Equal(got, []string{"obj"}) {
		t.Errorf("a List = %q, %v; want [obj]", got, err)
	}
	if string(get(t, a, "obj")) != "from a" || string(get(t, b, "obj")) != "from b" {
		t.Error("stores of different prefixes share an object")
	}
	if err := a.Delete("obj"); err != nil {
		t.Fatal(err)
	}
	if string(get(t, b, "obj")) != "from b" {
		t.Error("Delete under one prefix removed the other's object")
	}
}

// TestS3Parts checks how writes become upload requests: an object goes up
// in parts of the store's part size, and an empty object in one request.
func TestS3Parts(t *testing.T) {
	f := newFakeS3(t, "bucket")
	st, err := Open(f.url("bucket/p"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.(*s3Store).partSize = 5 << 20
	for _, tc := range []struct {
		name      string
		size      int
		wantParts int64
	}{
		{"empty", 0, 0},
		{"small", 100, 1},
		{"one-part", 5 << 20, 1},
		{"three-parts", 10<<20 + 1, 3},
	} {
		before := f.parts.Load()
		data := randomBytes(uint64(tc.size), tc.size)
		put(t, st, tc.name, data, 65536)
		if got := f.parts.Load() - before; got != tc.wantParts {
			t.Errorf("%s: %d parts uploaded, want %d", tc.name, got, tc.wantParts)
		}
		if got := get(t, st, tc.name); !bytes.Equal(got, data) {
			t.Errorf("%s: read back %d bytes that differ from the %d written", tc.name, len(got), len(data))
		}
	}
}

// TestS3UploadErrorOnClose checks that a failed upload surfaces on Close and
// leaves no object.
func TestS3UploadErrorOnClose(t *testing.T) {
	f := newFakeS3(t, "bucket")
	st, err := Open(f.url("bucket"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := st.CreateObject("obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.backend.DeleteBucket("bucket"); err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("data"))
	err = w.Close()
	if err == nil {
		t.Fatal("Close succeeded although the bucket is gone")
	}
	if !strings.Contains(err.Error(), "s3://bucket/obj") {
		t.Errorf("Close error %q does not name the object", err)
	}
}

func TestFileStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	st, err := Open("file://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("Open did not create %s: %v", dir, err)
	}

	t.Run("TempFilesHidden", func(t *testing.T) {
		w, err := st.CreateObject("obj")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("partial")); err != nil {
			t.Fatal(err)
		}
		// The bytes are on disk, under a temporary name List does not show.
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || !isTmpName(entries[0].Name()) || !strings.HasPrefix(entries[0].Name(), "obj.tmp-") {
			t.Fatalf("directory holds %v, want one temporary file", entries)
		}
		if got, err := st.List("", ""); err != nil || len(got) != 0 {
			t.Errorf("List during write = %q, %v; want nothing", got, err)
		}
		if _, _, err := st.ReadObject(context.Background(), "obj"); !st.IsNotExistError(err) {
			t.Errorf("ReadObject during write: err = %v, want a not-exist error", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		entries, err = os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name() != "obj" {
			t.Fatalf("after Close directory holds %v, want just obj", entries)
		}
	})

	t.Run("BadNames", func(t *testing.T) {
		for _, name := range []string{"", ".", "..", "a/b", "../escape", "obj.tmp-0123456789abcdef"} {
			if w, err := st.CreateObject(name); err == nil {
				w.Close()
				t.Errorf("CreateObject(%q) succeeded", name)
			}
		}
		if _, _, err := st.ReadObject(context.Background(), "../b"); err == nil {
			t.Error(`ReadObject("../b") succeeded`)
		}
		// A name that merely resembles a temporary one is fine.
		put(t, st, "x.tmp-notrandom", []byte("ok"), 2)
		if got := get(t, st, "x.tmp-notrandom"); string(got) != "ok" {
			t.Errorf("read %q, want ok", got)
		}
	})
}
