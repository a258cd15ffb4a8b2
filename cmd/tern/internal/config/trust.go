package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools/lsp"
	"github.com/ternhq/tern/tools/mcp"
)

// A repository's own .tern.toml is written by whoever wrote the repository
// (or by the model, in an earlier session). It may tune how tern works on
// it, and narrow what tern may do, but never grant more than the user's own
// config file and flags grant. mergeProject applies it that way:
//
//   - allow_read, allow_commands, host and fetch_allow are the user's to
//     give: a project file's values are ignored, with a notice;
//   - deny_commands from the project are added to the user's, never
//     replacing them;
//   - max_tier can only go down, and tier is kept at or below it;
//   - [sandbox] can only tighten the user's: hidden paths are added, the
//     network turned off, the sandbox required; writable and mechanism
//     are ignored, with a notice;
//   - MCP servers the project names are marked as the project's, so they
//     start only after the user approves (--yes does not cover them);
//   - language servers the project may switch off, never name or tune:
//     a command or settings would run what the repository chooses;
//   - every other key (model, ctx, rag, profiles, …) is taken as written.

// trustKeys are the top-level keys only the user may set; the value says
// where to set them instead.
var trustKeys = map[string]string{
	"allow_read":     "a repository cannot allow reads outside itself; use --allow-read or your own config file",
	"allow_commands": "a repository cannot let commands run without approval; list them in your own config file",
	"host":           "a repository cannot choose where your prompts and code are sent; use --host, OLLAMA_HOST or your own config file",
	"base_url":       "a repository cannot choose where your prompts and code are sent; use --host or your own config file",
	"embed_base_url": "a repository cannot choose where your code is sent for embedding; use your own config file",
	"escalate_host":  "a repository cannot choose where your prompts and code are sent; set escalate_host in your own config file",
	"fetch_allow":    "a repository cannot open private network addresses to fetch_url; list hosts in your own config file",
	"stream":         "a repository cannot loosen the limits that keep a stalled server from hanging tern; set [stream] in your own config file",
	"lsp_wait":       "a repository cannot change how long each edit waits for its language server; set it in your own config file",
}

// projectKeys are the keys a project file sets as it likes: they change how
// tern works on the repository, not what it may do.
var projectKeys = map[string]bool{
	"model": true, "backend": true, "ctx": true, "vram": true, "ram": true, "max_turns": true, "embed_model": true,
	"think": true, "keep_alive": true, "temperature": true, "tool_mode": true, "compact_threshold": true,
	"rag": true, "rag_share": true, "think_budget": true, "subagent_model": true, "explore_share": true,
	"explore_turns": true, "escalate_model": true,
}

// mergedKeys are merged by mergeProject so that the project cannot widen
// trust; the value says how, in the configuration reference (docs/configuration.md).
var mergedKeys = map[string]string{
	"deny_commands": "added to yours",
	"intent":        "added to yours",
	"profiles":      "added to yours, a profile of the same key replaced",
	"max_tier":      "lowers it only",
	"tier":          "kept at or below `max_tier`",
	"mcp":           "added to yours; its servers start only after you approve",
	"sandbox":       "tightens yours only: `hidden` added, `network = false` and `required = true` taken",
	"lsp":           "switches a server off only (`enabled = false`)",
	"lsp_enabled":   "turns them off only",
}

// tomlKey is the key a Config field is read from, "" for none.
func tomlKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if key == "-" {
		return ""
	}
	return key
}

// mergeProject applies proj, decoded from the project file at path with
// metadata md, over cfg, the defaults merged with the user's file.
func (cfg *Config) mergeProject(proj Config, md toml.MetaData, path string) {
	defined := map[string]bool{}
	for _, k := range md.Keys() {
		defined[k[0]] = true
	}
	for _, key := range slices.Sorted(maps.Keys(trustKeys)) {
		if defined[key] {
			cfg.notices = append(cfg.notices, fmt.Sprintf("%s: %s ignored: %s", path, key, trustKeys[key]))
		}
	}
	take := func(key string, apply func()) {
		if defined[key] {
			apply()
		}
	}
	// Keys that tune how tern works are taken as the project wrote them;
	// those that can widen trust are merged by hand below. A key in
	// neither list (one added later and not yet judged) is not taken.
	cv, pv := reflect.ValueOf(cfg).Elem(), reflect.ValueOf(proj)
	for i := range cv.NumField() {
		key := tomlKey(cv.Type().Field(i))
		switch {
		case key == "" || !defined[key] || mergedKeys[key] != "" || trustKeys[key] != "":
		case projectKeys[key]:
			cv.Field(i).Set(pv.Field(i))
		default:
			cfg.notices = append(cfg.notices, fmt.Sprintf("%s: %s ignored: only your own config file can set it", path, key))
		}
	}
	take("deny_commands", func() {
		for _, d := range proj.DenyCommands {
			if !slices.Contains(cfg.DenyCommands, d) {
				cfg.DenyCommands = append(cfg.DenyCommands, d)
			}
		}
	})
	take("intent", func() {
		cfg.Intent = disclosure.Overrides{
			Edit:     append(slices.Clone(cfg.Intent.Edit), proj.Intent.Edit...),
			Commands: append(slices.Clone(cfg.Intent.Commands), proj.Intent.Commands...),
			External: append(slices.Clone(cfg.Intent.External), proj.Intent.External...),
			Negation: append(slices.Clone(cfg.Intent.Negation), proj.Intent.Negation...),
		}
	})
	take("profiles", func() {
		if cfg.Profiles == nil {
			cfg.Profiles = map[string]models.ProfileOverride{}
		}
		maps.Copy(cfg.Profiles, proj.Profiles)
	})
	take("max_tier", func() {
		if !disclosure.Tier(proj.MaxTier).Valid() {
			cfg.MaxTier = proj.MaxTier // reported by checkTiers
		} else if proj.MaxTier < cfg.MaxTier {
			cfg.MaxTier = proj.MaxTier
		} else if proj.MaxTier > cfg.MaxTier {
			cfg.notices = append(cfg.notices, fmt.Sprintf("%s: max_tier %d ignored: a repository can lower the tier cap (%d), not raise it", path, proj.MaxTier, cfg.MaxTier))
		}
	})
	take("tier", func() { cfg.Tier = proj.Tier })
	if defined["tier"] && disclosure.Tier(cfg.Tier).Valid() && cfg.Tier > cfg.MaxTier {
		cfg.notices = append(cfg.notices, fmt.Sprintf("%s: tier %d lowered to %d, the highest tier you allow", path, cfg.Tier, cfg.MaxTier))
		cfg.Tier = cfg.MaxTier
	}
	take("sandbox", func() {
		cfg.notices = append(cfg.notices, cfg.Sandbox.mergeProject(proj.Sandbox, md, path)...)
	})
	take("lsp_enabled", func() {
		if !proj.LSPEnabled {
			cfg.LSPEnabled = false
		}
	})
	take("lsp", func() {
		cfg.LSP = lsp.Narrow(cfg.LSP, proj.LSP)
		ignored := map[string][]string{}
		for _, k := range md.Keys() {
			if len(k) == 3 && k[0] == "lsp" && k[2] != "enabled" {
				ignored[k[1]] = append(ignored[k[1]], k[2])
			}
		}
		for _, lang := range slices.Sorted(maps.Keys(ignored)) {
			cfg.notices = append(cfg.notices, fmt.Sprintf("%s: lsp.%s %s ignored: a repository can switch a language server off (enabled = false), not choose what runs or how; set it in your own config file",
				path, lang, strings.Join(ignored[lang], ", ")))
		}
	})
	take("mcp", func() {
		if cfg.MCP.Servers == nil {
			cfg.MCP.Servers = map[string]mcp.ServerTable{}
		}
		// A project table replaces the user's table of the same name as a
		// whole; it is then the project's, and needs approval to start.
		maps.Copy(cfg.MCP.Servers, proj.MCP.Servers)
		cfg.MCP.NoteSources(md, path)
	})
}
