package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds a server's start (launch, handshake, tool listing)
// and each call of one of its tools, when its config names no timeout.
const DefaultTimeout = 60 * time.Second

// ServerConfig is one MCP server as the user configured it: a program that
// speaks MCP on its standard input and output (Command), or a streamable
// HTTP endpoint (URL).
type ServerConfig struct {
	// Name is the server's key in the config ([mcp.servers.NAME]). It
	// prefixes the names of its tools.
	Name string
	// Command, Args and Env start a stdio server. Env is added to tern's own
	// environment; its values may name variables of that environment as
	// $VAR or ${VAR}, so secrets need not be written in .tern.toml ($$ is
	// a literal $).
	Command string
	Args    []string
	Env     map[string]string
	// URL is the endpoint of a streamable HTTP server. Headers are sent
	// with every request (e.g. Authorization); their values are expanded
	// like Env's.
	URL     string
	Headers map[string]string
	// Enabled is true when unset.
	Enabled *bool
	// Timeout bounds the start and each call; DefaultTimeout when zero.
	Timeout time.Duration
	// Source is the file that configured the server, for messages.
	Source string
	// Entry, when set, is how messages name where the server is
	// configured, instead of "Source [mcp.servers.NAME]": the servers an
	// editor passes (tern acp) come from its settings, not a file.
	Entry string
}

// On reports whether the server is enabled.
func (c ServerConfig) On() bool { return c.Enabled == nil || *c.Enabled }

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// where names the config entry, so that a message can say what to fix.
func (c ServerConfig) where() string {
	if c.Entry != "" {
		return c.Entry
	}
	src := c.Source
	if src == "" {
		src = "the config"
	}
	return fmt.Sprintf("%s [mcp.servers.%s]", src, c.Name)
}

// Prefix is what the names of the server's tools start with: its name in
// snake_case, "" when it has no letter or digit. Two servers of one
// prefix cannot run together.
func (c ServerConfig) Prefix() string { return snake(c.Name) }

// Transport describes how tern reaches the server: "stdio: CMD ARGS" or
// "http: URL".
func (c ServerConfig) Transport() string {
	if c.URL != "" {
		return "http: " + c.URL
	}
	if c.Command == "" {
		return "neither command nor url"
	}
	return "stdio: " + strings.TrimSpace(c.Command+" "+strings.Join(c.Args, " "))
}

// Validate checks the entry and says what to write instead. A disabled
// server needs neither command nor url, so a project file can switch off a
// server of the user's file with `enabled = false` alone.
func (c ServerConfig) Validate() error {
	if strings.TrimSpace(c.Name) == "" {
		return errors.New("mcp server without a name; write it as [mcp.servers.NAME]")
	}
	if snake(c.Name) == "" {
		return fmt.Errorf("%s: the server name needs a letter or digit; it prefixes the names of its tools", c.where())
	}
	if c.Timeout < 0 {
		return fmt.Errorf("%s: timeout %v is negative", c.where(), c.Timeout)
	}
	if !c.On() {
		return nil
	}
	switch {
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("%s: set command (a program that speaks MCP on stdin/stdout) or url (a streamable HTTP endpoint)", c.where())
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("%s: set command or url, not both", c.where())
	case c.URL != "":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s: url %q is not an http:// or https:// address", c.where(), c.URL)
		}
		if len(c.Args) > 0 || len(c.Env) > 0 {
			return fmt.Errorf("%s: args and env apply to command servers; an url server takes headers", c.where())
		}
	default:
		if len(c.Headers) > 0 {
			return fmt.Errorf("%s: headers apply to url servers; a command server takes env", c.where())
		}
	}
	return nil
}
