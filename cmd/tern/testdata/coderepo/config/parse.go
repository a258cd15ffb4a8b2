package config

import "os"

// ParseConfigFile reads the settings file at path, one key=value a line.
func ParseConfigFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseLines(string(data)), nil
}
