package mcpsdk_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
)

// SPEC ERR-2, CALL-1, VIS-2 end to end: the real examples/mcpserver binary (built with
// go build), over stdio and over streamable HTTP, answers every corpus message with one
// content-free error, answers the next request, writes the canary neither to stdout,
// nor to an HTTP response, nor to stderr, and ends its stdio session with status 0 when
// the input ends. Demo principal alice may call models_search, not billing_set_budget.
func TestMCPServerBinaryEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the examples/mcpserver binary")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../examples/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	corpus := edgeCorpus("billing_set_budget", "models_search")
	command := func(args ...string) (*exec.Cmd, *syncBuffer) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(s string) bool {
			return strings.HasPrefix(s, discovery.SwitchVariable+"=")
		}), discovery.SwitchVariable+"=true")
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		return cmd, stderr
	}

	t.Run("stdio", func(t *testing.T) {
		cmd, stderr := command()
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdioAnswers(t, stdin, stdout, corpus)
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the server ended with %v, want status 0 at the end of its input; stderr:\n%.2000s", err, stderr)
		}
		if strings.Contains(stderr.String(), canary) {
			t.Errorf("stderr carries the canary:\n%.2000s", stderr)
		}
	})

	t.Run("http", func(t *testing.T) {
		tokens := filepath.Join(t.TempDir(), "tokens.json")
		if err := os.WriteFile(tokens, []byte(`{"tok-alice":{"principal":"alice","scopes":["registry:read","registry:write","data:write","training:write","deploy:write","inference:use"]}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd, _ := command("-http", "127.0.0.1:0", "-tokens", tokens)
		cmd.Stderr = nil
		pipe, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stderr := &syncBuffer{}
		addr := make(chan string, 1)
		go func() {
			listening := regexp.MustCompile(`listening on (http://\S+)`)
			r := bufio.NewReader(pipe)
			for {
				ln, err := r.ReadString('\n')
				stderr.Write([]byte(ln))
				if m := listening.FindStringSubmatch(ln); m != nil {
					addr <- m[1]
				}
				if err != nil {
					io.Copy(stderr, r)
					return
				}
			}
		}()
		defer func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
			if strings.Contains(stderr.String(), canary) {
				t.Errorf("stderr carries the canary:\n%.2000s", stderr)
			}
		}()
		select {
		case url := <-addr:
			httpEdges(t, url, "tok-alice", corpus)
		case <-time.After(60 * time.Second):
			t.Fatalf("the server did not listen; stderr:\n%s", stderr)
		}
	})
}
