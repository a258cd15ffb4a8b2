package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeArgs(t *testing.T) {
	type args struct {
		Path   string  `json:"path"`
		Offset intArg  `json:"offset"`
		Case   boolArg `json:"ignore_case"`
	}
	tests := []struct {
		in      string
		want    args
		wantErr string
	}{
		{in: ``, want: args{}},
		{in: `null`, want: args{}},
		{in: `{"path":"a.go","offset":10,"ignore_case":true}`, want: args{"a.go", intArg{10, true}, true}},
		{in: `{"offset":"10","ignore_case":"yes"}`, want: args{Offset: intArg{10, true}, Case: true}},
		{in: `{"offset":" 7 ","ignore_case":1}`, want: args{Offset: intArg{7, true}, Case: true}},
		{in: `{"offset":10.0}`, want: args{Offset: intArg{10, true}}},
		{in: `{"offset":""}`, want: args{}},
		{in: `{"offset":null,"extra":[1,2]}`, want: args{}},
		{in: `{"path":5}`, wantErr: `invalid argument "path": want a string, got a number`},
		{in: `{"offset":"ten"}`, wantErr: `invalid argument "offset": want a whole number such as 10, got "ten"`},
		{in: `{"offset":1.5}`, wantErr: `invalid argument "offset": want a whole number`},
		{in: `{"ignore_case":"maybe"}`, wantErr: `invalid argument "ignore_case": want true or false`},
		{in: `["a.go"]`, wantErr: "must be one JSON object of named arguments"},
		{in: `{"path":`, wantErr: "must be one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got args
			err := decodeArgs(json.RawMessage(tt.in), &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseDoc(t *testing.T) {
	d := parseDoc("Read a file.\nSecond  line.\n\n## path\nFile path,\n  e.g. \"a.go\"\n\n## limit\nLines\n")
	if d.text != "Read a file. Second line." {
		t.Errorf("text = %q", d.text)
	}
	if d.params["path"] != `File path, e.g. "a.go"` || d.params["limit"] != "Lines" || len(d.params) != 2 {
		t.Errorf("params = %q", d.params)
	}
}
