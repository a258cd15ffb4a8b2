package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// stallingClient is an editor whose terminals run a command that exits
// at once, and whose terminal/output never answers: the agent gives up on
// it.
type stallingClient struct{}

func (c *stallingClient) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }
func (c *stallingClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{}, errors.New("no")
}
func (c *stallingClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("no")
}
func (c *stallingClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("no")
}
func (c *stallingClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{TerminalId: "t1"}, nil
}
func (c *stallingClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	code := 0
	return sdk.WaitForTerminalExitResponse{ExitCode: &code}, nil
}
func (c *stallingClient) TerminalOutput(ctx context.Context, _ sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	<-ctx.Done() // the agent's cancel
	return sdk.TerminalOutputResponse{}, ctx.Err()
}
func (c *stallingClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, nil
}
func (c *stallingClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, nil
}

// A terminal is released even when reading its output took all the time
// a stopping request has: each such request has its own.
func TestTerminalReleasedAfterSlowOutput(t *testing.T) {
	old := stopTimeout
	stopTimeout = time.Second // the output read spends it all; the release, answered at once, needs little of its own
	t.Cleanup(func() { stopTimeout = old })

	toClientR, toClientW := io.Pipe()
	toAgentR, toAgentW := io.Pipe()
	t.Cleanup(func() { toClientW.Close(); toAgentW.Close() })
	cc := sdk.NewClientSideConnection(&stallingClient{}, toAgentW, toClientR)
	cc.SetLogger(slog.New(slog.DiscardHandler))
	var log strings.Builder // Run's warnings; it returns after the last
	a := &agentSide{deps: Deps{Log: slog.New(slog.NewTextHandler(&log, nil))}, life: t.Context(), sessions: map[string]*live{}}
	a.conn = sdk.NewAgentSideConnection(a, toClientW, toAgentR)
	a.conn.SetLogger(slog.New(slog.DiscardHandler))
	term := &Terminal{l: &live{a: a, id: "s1", dir: "/ws"}}

	res, err := term.Run(t.Context(), TerminalRun{Argv: []string{"true"}, Dir: "/ws"})
	if err != nil || !res.Exited {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if strings.Contains(log.String(), "release terminal") {
		t.Errorf("terminal/release failed, its time spent by the output read:\n%s", log.String())
	}
}
