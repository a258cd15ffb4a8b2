package tools

import "testing"

func TestSmoke(t *testing.T) {
	ws := newFixture(t)
	for _, c := range []struct{ tool Tool; args string; limit int }{
		{NewReadFile(ws), `{"path":"agent/loop.go"}`, 0},
		{NewReadFile(ws), `{"path":"big.txt","offset":"10","limit":5}`, 0},
		{NewReadFile(ws), `{"path":"big.txt"}`, 0},
		{NewReadFile(ws), `{"path":"big.txt","limit":1000}`, 1000},
		{NewReadFile(ws), `{"path":"latin1.txt"}`, 0},
		{NewReadFile(ws), `{"path":"img/logo.png"}`, 0},
		{NewReadFile(ws), `{"path":"loop.go"}`, 0},
		{NewReadFile(ws), `{"path":"debug.log"}`, 0},
		{NewReadFile(ws), `{"path":"big.txt","offset":2000}`, 0},
		{NewReadFile(ws), `{"path":"crlf.txt"}`, 0},
		{NewListDir(ws), `{}`, 0},
		{NewListDir(ws), `{"depth":5}`, 0},
		{NewListDir(ws), `{"path":"agent","depth":1}`, 0},
		{NewGrep(ws), `{"pattern":"retry"}`, 0},
		{NewGrep(ws), `{"pattern":"Retry","ignore_case":"true","include":".go"}`, 0},
		{NewGrep(ws), `{"pattern":"foo("}`, 0},
		{NewGrep(ws), `{"pattern":"foo\\(x\\)"}`, 0},
		{NewGrep(ws), `{"pattern":"line","path":"big.txt"}`, 0},
		{NewGlob(ws), `{"pattern":"**/*.go"}`, 0},
		{NewGlob(ws), `{"pattern":"*.go"}`, 0},
		{NewGlob(ws), `{"pattern":"*_test.go"}`, 0},
		{NewGlob(ws), `{"pattern":"agent/*.go"}`, 0},
	} {
		r := call(t, c.tool, c.args, c.limit)
		t.Logf("=== %s %s [err=%v] summary=%q\n%s", c.tool.Spec().Name, c.args, r.IsError, r.Summary, r.Output)
	}
}
