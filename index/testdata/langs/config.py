"""Configuration loading for the shop."""

import json
import os

DEFAULT_PATH = "shop.json"


class ConfigError(Exception):
    """Raised when the configuration is invalid."""


class Config:
    """Settings read from a JSON file."""

    def __init__(self, path=DEFAULT_PATH):
        self.path = path
        self.values = {}

    def load(self):
        """Read the file and validate it."""
        with open(self.path) as f:
            self.values = json.load(f)
        self.validate()

    @property
    def port(self):
        return self.values.get("port", 8080)

    def validate(self):
        if "name" not in self.values:
            raise ConfigError("missing name")


@staticmethod
def from_env():
    """Build a Config from the SHOP_CONFIG variable."""
    return Config(os.environ.get("SHOP_CONFIG", DEFAULT_PATH))


def parse_config_file(path):
    cfg = Config(path)
    cfg.load()
    return cfg


if __name__ == "__main__":
    print(parse_config_file(DEFAULT_PATH).values)
