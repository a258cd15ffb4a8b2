package server

import (
	"encoding/json"
	"os"
)

// Config holds the settings the shop reads at start.
type Config struct {
	Addr        string `json:"addr"`
	DatabaseURL string `json:"database_url"`
	SMTPHost    string `json:"smtp_host"`
}

// LoadConfig reads and parses the JSON configuration file at path.
func LoadConfig(path string) (Config, error) {
	var cfg Config
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	err = json.Unmarshal(data, &cfg)
	return cfg, err
}
