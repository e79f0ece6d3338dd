package sessions

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
)

// checkLineDecode fails when lineDecoder takes a line json.Unmarshal
// refuses, or decodes one to another claudeLine than json.Unmarshal.
func checkLineDecode(t *testing.T, d *lineDecoder, data []byte) bool {
	t.Helper()
	var fast, want claudeLine
	ok := d.decode(data, &fast)
	err := json.Unmarshal(data, &want)
	switch {
	case ok && err != nil:
		t.Fatalf("%q: decoded, json.Unmarshal refuses it: %v", data, err)
	case ok && !reflect.DeepEqual(fast, want):
		t.Fatalf("%q:\ndecoded      %+v\njson.Unmarshal %+v", data, fast, want)
	}
	return ok
}

// lineSeeds are lines json.Unmarshal decodes otherwise than a plain line:
// the decoder must decline them or agree.
var lineSeeds = []string{
	`{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"hi"}}`,
	`{"type":"user","type":"assistant"}`,
	`{"Type":"user","UUID":"u"}`,
	`{"ty\u0070e":"user","uuid":"\u0075"}`,
	`{"type":null,"message":null,"attachment":null,"isMeta":null}`,
	`{"type":"user","message":{"usage":{"input_tokens":1.5}}}`,
	`{"type":"user","message":{"usage":{"input_tokens":-0,"output_tokens":99999999999999999999}}}`,
	`{"type":"user","isSidechain":"true","cwd":5}`,
	`{"type":"user"} {"type":"x"}`,
	`{"type":"user"}` + "\n",
	`[1]`,
	"{\"type\":\"u\xffser\"}",
	`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a\nb"}],"stop_reason":null,"x":{"y":[1,2]}},"rendered":[{"content":"c"}],"compactMetadata":{"trigger":"auto","preservedMessages":{"uuids":["a"]}},"forkedFrom":{"sessionId":"s","messageUuid":"m"},"attachment":{"type":"date"}}`,
	`{"type":"user","rendered":[{"content":5}]}`,
}

// TestLineDecoderIsJSONUnmarshal: every line of the Claude fixtures decodes
// as json.Unmarshal decodes it, and nearly all of them without it.
func TestLineDecoderIsJSONUnmarshal(t *testing.T) {
	var d lineDecoder
	lines, fast := 0, 0
	for _, dir := range []string{unpack(t, "claude"), unpack(t, "captured-claude")} {
		for _, p := range transcripts(t, dir) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for l := range bytes.Lines(data) {
				lines++
				if checkLineDecode(t, &d, l) {
					fast++
				}
			}
		}
	}
	for _, s := range lineSeeds {
		checkLineDecode(t, &d, []byte(s))
	}
	if lines < 500 || fast < lines*9/10 {
		t.Fatalf("%d of %d fixture lines decoded without json.Unmarshal, want 9 in 10 of over 500", fast, lines)
	}
}

func FuzzClaudeLineDecode(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(claudeUser))
	f.Add([]byte(claudeAsst))
	var d lineDecoder
	f.Fuzz(func(t *testing.T, data []byte) { checkLineDecode(t, &d, data) })
}
