package shared

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/objstorage/remote"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// defaultS3Endpoint is the endpoint of an s3 URL that names none.
const defaultS3Endpoint = "s3.amazonaws.com"

// defaultPartSize is the size of the parts an object is uploaded in: each
// upload buffers one part, and an object holds at most 10,000 parts (160 GiB).
const defaultPartSize = 16 << 20

// openTimeout bounds Open's check that the endpoint answers and the bucket
// exists. A variable so that tests can shorten it.
var openTimeout = 10 * time.Second

// s3Params are the query parameters an s3 URL accepts.
var s3Params = map[string]bool{
	"endpoint": true, "region": true, "secure": true, "access_key": true, "secret_key": true,
}

// s3Config is what an s3 URL says.
type s3Config struct {
	bucket       string
	prefix       string // without leading or trailing '/'; may be empty
	endpoint     string // host[:port]
	region       string
	secure       bool
	accessKey    string
	secretKey    string
	sessionToken string
}

// parseS3URL reads an s3 URL, taking credentials missing from it from the
// environment.
func parseS3URL(u *url.URL) (s3Config, error) {
	cfg := s3Config{endpoint: defaultS3Endpoint, secure: true}
	if u.Opaque != "" {
		return cfg, fmt.Errorf("s3 URL must start with s3://bucket")
	}
	if u.User != nil {
		return cfg, fmt.Errorf("s3 URL must not carry credentials before the bucket; use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	if u.Fragment != "" {
		return cfg, fmt.Errorf("s3 URL takes no fragment")
	}
	cfg.bucket = u.Host
	if cfg.bucket == "" {
		return cfg, fmt.Errorf("s3 URL names no bucket")
	}
	if err := s3utils.CheckValidBucketName(cfg.bucket); err != nil {
		return cfg, fmt.Errorf("invalid bucket name %q: %v", cfg.bucket, err)
	}
	cfg.prefix = strings.Trim(u.Path, "/")
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return cfg, fmt.Errorf("malformed query: %v", err)
	}
	for k, vs := range q {
		if !s3Params[k] {
			return cfg, fmt.Errorf("unknown query parameter %q (known: endpoint, region, secure, access_key, secret_key)", k)
		}
		if len(vs) != 1 {
			return cfg, fmt.Errorf("query parameter %q given %d times", k, len(vs))
		}
	}
	if q.Has("endpoint") {
		cfg.endpoint = q.Get("endpoint")
		if cfg.endpoint == "" || strings.Contains(cfg.endpoint, "/") {
			return cfg, fmt.Errorf("endpoint %q must be host or host:port, without a scheme (use secure=false for plain http)", cfg.endpoint)
		}
	}
	cfg.region = q.Get("region")
	if q.Has("secure") {
		cfg.secure, err = strconv.ParseBool(q.Get("secure"))
		if err != nil {
			return cfg, fmt.Errorf("secure=%q is not true or false", q.Get("secure"))
		}
	}
	switch {
	case q.Has("access_key") != q.Has("secret_key"):
		return cfg, fmt.Errorf("access_key and secret_key must be given together")
	case q.Has("access_key"):
		cfg.accessKey, cfg.secretKey = q.Get("access_key"), q.Get("secret_key")
	default:
		cfg.accessKey = os.Getenv("AWS_ACCESS_KEY_ID")
		cfg.secretKey = os.Getenv("AWS_SECRET_ACCESS_KEY")
		cfg.sessionToken = os.Getenv("AWS_SESSION_TOKEN")
	}
	return cfg, nil
}

// s3Store is a remote.Storage over a bucket of an S3-compatible store. Object
// name n lives under key prefix + "/" + n, or n when there is no prefix.
type s3Store struct {
	client    *minio.Client
	transport *http.Transport
	bucket    string
	keyPrefix string // prefix + "/", or "" when there is no prefix
	partSize  uint64
}

var _ remote.Storage = (*s3Store)(nil)

// openS3 connects to the store cfg describes and checks that its bucket
// exists. name, the URL without secrets, is for errors.
func openS3(cfg s3Config, name string) (*s3Store, error) {
	transport, err := minio.DefaultTransport(cfg.secure)
	if err != nil {
		return nil, fmt.Errorf("shared: storage URL %q: %w", name, err)
	}
	client, err := minio.New(cfg.endpoint, &minio.Options{
		Creds:     credentials.NewStaticV4(cfg.accessKey, cfg.secretKey, cfg.sessionToken),
		Secure:    cfg.secure,
		Region:    cfg.region,
		Transport: transport,
	})
	if err != nil {
		return nil, fmt.Errorf("shared: storage URL %q: %w", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	ok, err := client.BucketExists(ctx, cfg.bucket)
	if err != nil {
		transport.CloseIdleConnections()
		return nil, fmt.Errorf("shared: storage URL %q: cannot check bucket %q at %s (check that the endpoint is reachable, secure= matches it, and the region and credentials are right): %w",
			name, cfg.bucket, client.EndpointURL(), err)
	}
	if !ok {
		transport.CloseIdleConnections()
		return nil, fmt.Errorf("shared: storage URL %q: bucket %q does not exist at %s (check the bucket name and endpoint, or create the bucket)",
			name, cfg.bucket, client.EndpointURL())
	}
	s := &s3Store{client: client, transport: transport, bucket: cfg.bucket, partSize: defaultPartSize}
	if cfg.prefix != "" {
		s.keyPrefix = cfg.prefix + "/"
	}
	return s, nil
}

// key returns the key of the named object.
func (s *s3Store) key(name string) (string, error) {
	if name == "" {
		return "", errors.New("shared: empty object name")
	}
	return s.keyPrefix + name, nil
}

// Close is part of remote.Storage.
func (s *s3Store) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

// ReadObject is part of remote.Storage. The reader fetches each ReadAt's
// range with a request of its own, so reads may run in parallel and each
// obeys its own context; a read fails (If-Match on the ETag) rather than
// return bytes of an object written after ReadObject.
func (s *s3Store) ReadObject(ctx context.Context, name string) (remote.ObjectReader, int64, error) {
	key, err := s.key(name)
	if err != nil {
		return nil, 0, err
	}
	info, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return nil, 0, fmt.Errorf("shared: stat s3://%s/%s: %w", s.bucket, key, err)
	}
	return &s3Reader{store: s, key: key, size: info.Size, etag: info.ETag}, info.Size, nil
}

// CreateObject is part of remote.Storage. The bytes written stream into one
// upload, and the object appears, replacing any object of the same name,
// when Close returns nil; Close reports the upload's error.
func (s *s3Store) CreateObject(name string) (io.WriteCloser, error) {
	key, err := s.key(name)
	if err != nil {
		return nil, err
	}
	return &s3Writer{store: s, key: key}, nil
}

// putOptions are the options of every upload. Each part carries its MD5,
// which the store checks, instead of a streaming (aws-chunked) signature:
// that keeps the bytes checked end to end over plain http too, and works
// with stores that do not take aws-chunked uploads.
func (s *s3Store) putOptions() minio.PutObjectOptions {
	return minio.PutObjectOptions{
		ContentType:          "application/octet-stream",
		PartSize:             s.partSize,
		SendContentMd5:       true,
		DisableContentSha256: true,
	}
}

// errUploadDone fails a Write that comes after the upload finished.
var errUploadDone = errors.New("shared: upload already finished")

// List is part of remote.Storage.
func (s *s3Store) List(prefix, delimiter string) ([]string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var names []string
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{
		Prefix:    s.keyPrefix + prefix,
		Recursive: true,
	}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("shared: list s3://%s/%s: %w", s.bucket, s.keyPrefix+prefix, obj.Err)
		}
		names = append(names, strings.TrimPrefix(obj.Key, s.keyPrefix))
	}
	return listNames(names, prefix, delimiter), nil
}

// Delete is part of remote.Storage. Deleting a missing object is not an
// error.
func (s *s3Store) Delete(name string) error {
	key, err := s.key(name)
	if err != nil {
		return err
	}
	if err := s.client.RemoveObject(context.Background(), s.bucket, key, minio.RemoveObjectOptions{}); err != nil && !s.IsNotExistError(err) {
		return fmt.Errorf("shared: delete s3://%s/%s: %w", s.bucket, key, err)
	}
	return nil
}

// Size is part of remote.Storage.
func (s *s3Store) Size(name string) (int64, error) {
	key, err := s.key(name)
	if err != nil {
		return 0, err
	}
	info, err := s.client.StatObject(context.Background(), s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return 0, fmt.Errorf("shared: stat s3://%s/%s: %w", s.bucket, key, err)
	}
	return info.Size, nil
}

// IsNotExistError is part of remote.Storage.
func (s *s3Store) IsNotExistError(err error) bool {
	var resp minio.ErrorResponse
	if !errors.As(err, &resp) {
		return false
	}
	return resp.Code == minio.NoSuchKey || resp.Code == "NotFound"
}

// s3Reader reads ranges of one version of an object.
type s3Reader struct {
	store *s3Store
	key   string
	size  int64
	etag  string
}

// ReadAt is part of remote.ObjectReader: it fills p from offset, or fails.
func (r *s3Reader) ReadAt(ctx context.Context, p []byte, offset int64) error {
	if offset < 0 || offset > r.size || int64(len(p)) > r.size-offset {
		return fmt.Errorf("shared: read of %d bytes at offset %d is outside s3://%s/%s, of %d bytes: %w",
			len(p), offset, r.store.bucket, r.key, r.size, io.ErrUnexpectedEOF)
	}
	if len(p) == 0 {
		return nil
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(offset, offset+int64(len(p))-1); err != nil {
		return err
	}
	if r.etag != "" {
		// Fail rather than mix in bytes of an object written since ReadObject.
		if err := opts.SetMatchETag(r.etag); err != nil {
			return err
		}
	}
	obj, err := r.store.client.GetObject(ctx, r.store.bucket, r.key, opts)
	if err != nil {
		return fmt.Errorf("shared: read s3://%s/%s: %w", r.store.bucket, r.key, err)
	}
	defer obj.Close()
	if _, err := io.ReadFull(obj, p); err != nil {
		return fmt.Errorf("shared: read %d bytes at offset %d of s3://%s/%s: %w", len(p), offset, r.store.bucket, r.key, err)
	}
	return nil
}

// Close is part of remote.ObjectReader.
func (r *s3Reader) Close() error {
	return nil
}

// s3Writer feeds an upload, started by the first Write and running in its
// own goroutine, through a pipe.
type s3Writer struct {
	store     *s3Store
	key       string
	pw        *io.PipeWriter // nil until the first Write
	done      chan struct{}  // closed when the upload has returned
	uploadErr error          // the upload's error; read after done is closed
	closed    bool
}

// start starts the upload of the bytes written to w.pw.
func (w *s3Writer) start() {
	pr, pw := io.Pipe()
	w.pw, w.done = pw, make(chan struct{})
	go func() {
		defer close(w.done)
		// Size -1: the upload goes in parts as the bytes come.
		_, err := w.store.client.PutObject(context.Background(), w.store.bucket, w.key, pr, -1, w.store.putOptions())
		if err == nil {
			err = errUploadDone
		} else {
			w.uploadErr = err
		}
		// Fail the Writes still to come, or blocked in the pipe.
		pr.CloseWithError(err)
	}()
}

// Write is part of io.Writer. After the upload fails, Write returns its error.
func (w *s3Writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, fmt.Errorf("shared: write to closed object writer for s3://%s/%s", w.store.bucket, w.key)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if w.pw == nil {
		w.start()
	}
	return w.pw.Write(p)
}

// Close ends the object's bytes, waits for the upload to finish, and returns
// its error.
func (w *s3Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.pw == nil {
		// Nothing written: store an empty object in one request, as a
		// multipart upload cannot hold an empty object.
		_, err := w.store.client.PutObject(context.Background(), w.store.bucket, w.key, bytes.NewReader(nil), 0, w.store.putOptions())
		if err != nil {
			return fmt.Errorf("shared: upload s3://%s/%s: %w", w.store.bucket, w.key, err)
		}
		return nil
	}
	_ = w.pw.Close()
	<-w.done
	if w.uploadErr != nil {
		return fmt.Errorf("shared: upload s3://%s/%s: %w", w.store.bucket, w.key, w.uploadErr)
	}
	return nil
}
