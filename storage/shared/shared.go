// Package shared opens the object stores that hold durable checkpoints in
// shared storage.
//
// Every backend is exposed as Pebble's remote.Storage, so callers use one
// interface whatever the store: Open picks the backend from a URL.
//
// Both backends give the same guarantees: an object becomes visible, whole,
// only when its writer's Close returns nil; overwriting an object replaces it
// atomically; deleting a missing object is not an error; List trims the prefix
// from its results and groups them by the delimiter as remote.Storage
// documents.
package shared

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/cockroachdb/pebble/v2/objstorage/remote"
)

// acceptedForms lists the URL forms Open accepts; errors about a URL quote it.
const acceptedForms = `accepted forms: "file:///path" (a directory every node sees) or ` +
	`"s3://bucket[/prefix][?endpoint=host:port&region=r&secure=true|false]"`

// Open opens the object store a URL names:
//
//	file:///path   a directory every node sees (an NFS mount, or a local
//	               directory in tests); created if missing.
//	s3://bucket/prefix?endpoint=host:port&region=r&secure=false
//	               an S3-compatible store. Credentials come from
//	               AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and
//	               AWS_SESSION_TOKEN), or the access_key / secret_key query
//	               parameters (meant for tests). endpoint defaults to
//	               s3.amazonaws.com, secure to true; the prefix is optional.
//
// Open of an s3 URL checks that the endpoint answers and the bucket exists.
func Open(rawURL string) (remote.Storage, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error quotes the whole URL, secrets included: report only its cause.
		cause := err
		if ue, ok := err.(*url.Error); ok {
			cause = ue.Err
		}
		return nil, fmt.Errorf("shared: malformed storage URL %q: %v; %s", redact(rawURL), cause, acceptedForms)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		dir, err := parseFileURL(u)
		if err != nil {
			return nil, fmt.Errorf("shared: bad storage URL %q: %v; %s", redact(rawURL), err, acceptedForms)
		}
		return openFile(dir)
	case "s3":
		cfg, err := parseS3URL(u)
		if err != nil {
			return nil, fmt.Errorf("shared: bad storage URL %q: %v; %s", redact(rawURL), err, acceptedForms)
		}
		return openS3(cfg, redact(rawURL))
	case "":
		return nil, fmt.Errorf("shared: storage URL %q has no scheme; %s", redact(rawURL), acceptedForms)
	default:
		return nil, fmt.Errorf("shared: storage URL %q has unsupported scheme %q; %s", redact(rawURL), u.Scheme, acceptedForms)
	}
}

// parseFileURL returns the directory a file URL names.
func parseFileURL(u *url.URL) (string, error) {
	switch {
	case u.Opaque != "":
		return "", fmt.Errorf("file URL needs an absolute path, as in file:///path")
	case u.Host != "" && u.Host != "localhost":
		return "", fmt.Errorf("file URL names host %q; use file:///path with three slashes", u.Host)
	case u.User != nil:
		return "", fmt.Errorf("file URL must not carry user information")
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("file URL takes no query or fragment")
	case u.Path == "" || !strings.HasPrefix(u.Path, "/"):
		return "", fmt.Errorf("file URL needs an absolute path, as in file:///path")
	}
	return u.Path, nil
}

// secretRE matches the value of a secret_key query parameter.
var secretRE = regexp.MustCompile(`(?i)(secret_key=)[^&#]*`)

// redact hides secrets in a URL so that it can appear in an error.
func redact(rawURL string) string {
	return secretRE.ReplaceAllString(rawURL, "${1}REDACTED")
}

// listNames implements remote.Storage's List over names relative to the
// store's root: it keeps the names that start with prefix, trims the prefix,
// and, given a delimiter, groups names sharing the part before the delimiter
// into that part. A delimiter right after the prefix is skipped first, so
// that, as remote.Storage documents, with objects a, b/4, b/5 and b/6,
// List("b", "/") gives 4, 5 and 6 while List("b", "") gives /4, /5 and /6.
// The result is sorted and has no duplicates.
func listNames(names []string, prefix, delimiter string) []string {
	seen := make(map[string]struct{})
	res := []string{}
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		if delimiter != "" {
			if prefix != "" {
				rest = strings.TrimPrefix(rest, delimiter)
			}
			if i := strings.Index(rest, delimiter); i >= 0 {
				rest = rest[:i]
			}
		}
		if _, dup := seen[rest]; dup {
			continue
		}
		seen[rest] = struct{}{}
		res = append(res, rest)
	}
	sort.Strings(res)
	return res
}
